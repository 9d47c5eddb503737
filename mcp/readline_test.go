package mcp

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// readLine gives each line's bytes exactly, long ones whole (chunks
// joined), cut at max with the rest of the line dropped, an empty line,
// and the last line without its newline.
func TestReadLineLongLinesWholeAndExact(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 5<<20/16) + "end"
	over := strings.Repeat("z", 7<<20)
	const max = 6 << 20
	in := "short\n" + long + "\n\n" + over + "\nafter\nlast"
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	for i, want := range []struct {
		line string
		cut  bool
		err  error
	}{
		{"short", false, nil},
		{long, false, nil},
		{"", false, nil},
		{over[:max], true, nil},
		{"after", false, nil},
		{"last", false, io.EOF},
	} {
		line, cut, err := readLine(br, max)
		if string(line) != want.line || cut != want.cut || err != want.err {
			t.Fatalf("line %d: read %d bytes (cut %v, %v), want %d bytes (cut %v, %v)", i, len(line), cut, err, len(want.line), want.cut, want.err)
		}
	}
}
