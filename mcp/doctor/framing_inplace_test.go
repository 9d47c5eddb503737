package doctor

import (
	"runtime"
	"strings"
	"testing"
)

// A line that is not a message is judged and quoted in place: a cut
// 256 MiB SSE line was copied whole twice to be quoted by 80 bytes (a
// 300 MB line took call to 1.08 GB, now 554 MB).
func TestPreviewAndFragmentReadALongLineInPlace(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":3,"result":{"text":"` + strings.Repeat("a", 8<<20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fragment, quoted := looksLikeFragment(line), preview(line)
	runtime.ReadMemStats(&after)
	if !fragment || !strings.HasPrefix(quoted, `"{\"jsonrpc\"`) || !strings.HasSuffix(quoted, `aaa…"`) {
		t.Errorf("fragment %v, preview %s", fragment, quoted)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Errorf("judging and quoting a %d-byte line allocated %d bytes", len(line), grew)
	}
}
