package tokens

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
)

// Text longer than a chunk is counted a chunk at a time, cut before white
// space, with the count of the whole: prose, code, CRLF lines, runs of
// spaces.
func TestCountInChunksIsTheWholeCount(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 3*countChunk; i++ {
		fmt.Fprintf(&b, "Line %d: the quick brown fox\tjumps over   the lazy dog; ", i)
		if i%7 == 0 {
			b.WriteString("{\"k\": [1, 2, 3]}\r\n")
		}
		if i%11 == 0 {
			b.WriteString("\n\n    indented()\n")
		}
	}
	s := b.String()
	if got, want := Count(s), countAll(s); got != want {
		t.Errorf("counted in chunks: %d tokens; whole: %d", got, want)
	}
}

// A 4 MB tool name, one piece for the tokenizer, is counted in chunks:
// the heap it holds at its peak (sampled) stays within tens of megabytes
// (as one piece, 288 MB were allocated for it; 663 MB and 17 s for a
// 10 MB name in check).
func TestCountOfOneHugeWordIsBounded(t *testing.T) {
	word := strings.Repeat("t", 4<<20)
	var n int
	peak, took := heappeak.Of(func() { n = Count(word) })
	t.Logf("%d tokens in %v, a peak of %.1f MiB", n, took, float64(peak)/(1<<20))
	if n < len(word)/16 || n > len(word) {
		t.Errorf("%d tokens for %d bytes", n, len(word))
	}
	if peak > 64<<20 {
		t.Errorf("counting a 4 MB word held %.1f MiB at its peak", float64(peak)/(1<<20))
	}
}
