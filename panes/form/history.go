package form

import (
	"bytes"
	"encoding/json"
	"sync"
)

// History keeps the values sent with each form, by a key the caller picks
// ("tool:book_trip", "prompt:summarise", "elicit:server/x"), newest last.
// It lives in memory in the UI; the form itself only reads a slice of it
// (Options.History), so the form stays free of any storage.
type History struct {
	mu      sync.Mutex
	max     int
	entries map[string][]json.RawMessage
}

// NewHistory keeps up to max values per key (20 when max <= 0).
func NewHistory(max int) *History {
	if max <= 0 {
		max = 20
	}
	return &History{max: max, entries: map[string][]json.RawMessage{}}
}

// Add records v as the newest value for key. Sending the same value again
// moves it to the newest place instead of repeating it.
func (h *History) Add(key string, v json.RawMessage) {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return // not JSON: nothing worth bringing back
	}
	compact := json.RawMessage(b.Bytes())
	h.mu.Lock()
	defer h.mu.Unlock()
	list := h.entries[key]
	out := make([]json.RawMessage, 0, len(list)+1)
	for _, x := range list {
		if !bytes.Equal(x, compact) {
			out = append(out, x)
		}
	}
	out = append(out, compact)
	if len(out) > h.max {
		out = out[len(out)-h.max:]
	}
	h.entries[key] = out
}

// Get returns key's values, oldest first, as Options.History wants them.
func (h *History) Get(key string) []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]json.RawMessage(nil), h.entries[key]...)
}
