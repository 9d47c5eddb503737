package mcp

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
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

// A body over 1 MiB is read through a mapping and copied to the heap a
// piece at a time: the same bytes, cut at the limit as before, and never
// held twice on the heap (chunks joined at the end were).
func TestReadBodyLongExactAndHeldOnce(t *testing.T) {
	body := []byte(strings.Repeat("0123456789abcdef", 20<<20/16))
	for _, limit := range []int64{int64(len(body)), int64(len(body)) - 1, 3 << 20, int64(len(body)) + 10} {
		var got []byte
		var cut bool
		var err error
		peak, _ := heappeak.Of(func() { got, cut, err = readBody(bytes.NewReader(body), limit) })
		want := body[:min(int64(len(body)), limit)]
		if err != nil || !bytes.Equal(got, want) || cut != (limit < int64(len(body))) {
			t.Fatalf("limit %d: read %d bytes (cut %v, %v), want %d (cut %v)", limit, len(got), cut, err, len(want), limit < int64(len(body)))
		}
		if runtime.GOOS == "linux" && peak > uint64(len(want))*3/2 {
			t.Errorf("limit %d: the heap rose by %d bytes for a %d-byte body: held twice", limit, peak, len(want))
		}
	}
}
