package heappeak

import "testing"

var kept []byte

// A function that holds 32 MiB raises the peak by at least that much.
func TestOfSeesWhatAFunctionHolds(t *testing.T) {
	peak, _ := Of(func() {
		kept = make([]byte, 32<<20)
		for i := range kept {
			kept[i] = byte(i)
		}
	})
	kept = nil
	if peak < 32<<20 {
		t.Fatalf("peak %d bytes, want at least 32 MiB", peak)
	}
}
