package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
)

// maxBatch bounds one batch: large enough that a flood costs few Updates
// and renders, small enough that a key pressed during a flood is handled
// between two batches rather than after the whole flood.
const maxBatch = 2048

// eventsMsg is a batch of events drained from one client's stream. gen
// says which connection they came from: after a reconnect the old stream is
// drained to its end (its exit belongs before the separator) while the new
// one starts.
type eventsMsg struct {
	gen    int
	events []mcp.Event
	closed bool // the stream ended after these events
}

// waitForEvents blocks off the UI goroutine until an event arrives, then
// drains whatever else is already queued (up to maxBatch) into one message.
// Update re-arms exactly one wait per stream after applying a batch, so
// events stay in order and there is never a second reader.
func waitForEvents(gen int, ch <-chan mcp.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsMsg{gen: gen, closed: true}
		}
		batch := make([]mcp.Event, 1, 64)
		batch[0] = ev
		for len(batch) < maxBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{gen: gen, events: batch, closed: true}
				}
				batch = append(batch, ev)
			default:
				return eventsMsg{gen: gen, events: batch}
			}
		}
		return eventsMsg{gen: gen, events: batch}
	}
}
