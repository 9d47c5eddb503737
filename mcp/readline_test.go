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

// A line kept where it was read (KeepLongLines) is the same bytes as one
// copied to the heap: long ones whole, a cut one cut at max, and small
// ones as ever; and what a kept line holds stays readable after the
// lines that follow it.
func TestReadLineKeptLongLinesExact(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 5<<20/16) + "end"
	over := strings.Repeat("z", 7<<20)
	const max = 6 << 20
	in := long + "\nshort\n" + over + "\n" + long[:1<<20+1] + "\nlast"
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	var kept [][]byte
	for i, want := range []struct {
		line  string
		total int64
		err   error
	}{
		{long, int64(len(long)), nil},
		{"short", 5, nil},
		{over[:max], int64(len(over)), nil},
		{long[:1<<20+1], 1<<20 + 1, nil},
		{"last", 4, io.EOF},
	} {
		line, total, err := readLineSized(br, max, true)
		if string(line) != want.line || total != want.total || err != want.err {
			t.Fatalf("line %d: read %d bytes of %d (%v), want %d of %d (%v)", i, len(line), total, err, len(want.line), want.total, want.err)
		}
		if len(line) > longLineBytes && cap(line) != len(line) {
			t.Fatalf("line %d: capacity %d past its %d bytes: an append would write into the mapping", i, cap(line), len(line))
		}
		kept = append(kept, line)
	}
	if string(kept[0]) != long || string(kept[2]) != over[:max] {
		t.Fatal("a kept line changed after the lines read after it")
	}
}
