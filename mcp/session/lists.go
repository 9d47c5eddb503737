package session

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// relistLocked re-reads a list after the server said it changed: at most
// one re-list in flight per list, and one more after it when another
// change arrived meanwhile (server-everything sends five
// tools/list_changed in a row right after initialized). A correct client
// never calls what the server did not declare; the doctor flags such a
// notification, and the user can still list by hand.
//
// at is the time of the event that asked for it: an ignored list_changed
// is reported at its notification's time.
func (s *Session) relistLocked(method string, at time.Time) []mcp.Event {
	l, _ := mcp.LookupList(method)
	capability := l.Capability
	if s.handshake == nil {
		if s.early == nil {
			s.early = map[string]bool{}
		}
		s.early[method] = true
		return nil
	}
	if !s.handshake.HasCapability(capability) {
		return []mcp.Event{ListChangeIgnoredEvent{Time: at, Method: method, Capability: capability}}
	}
	if s.listing[method] {
		s.relistAgain[method] = true
		return nil
	}
	if s.ended {
		return nil
	}
	s.listing[method] = true
	s.wg.Add(1)
	go s.relist(method)
	return nil
}

// relist reads every page of a list and publishes it with what changed,
// after its last response frame.
func (s *Session) relist(method string) {
	defer s.wg.Done()
	items, last, err := s.listAll(method)
	s.mu.Lock()
	s.listing[method] = false
	prev, known := s.lists[method]
	at := s.atLocked(last)
	ev := ListChangedEvent{Time: at, Method: method, Items: items, Err: err, Known: known}
	if err == nil {
		ev.Diff = diffLists(method, prev, items)
	}
	s.lists[method] = items
	// Published before the next re-list starts, so the two never swap.
	s.publishAfterLocked(last, ev)
	if s.relistAgain[method] {
		s.relistAgain[method] = false
		s.publishAfterLocked(last, s.relistLocked(method, at)...)
	}
	s.mu.Unlock()
}

// listAll reads every page of a list (Client.ListAll) and returns the last
// response frame, so the outcome is published after it.
func (s *Session) listAll(method string) ([]json.RawMessage, *mcp.Frame, error) {
	var last *mcp.Frame
	items, _, err := s.c.ListAll(s.ctx, method, mcp.WithResponse(func(r *mcp.Response) { last = r.Frame }))
	return items, last, err
}

// itemKey is what identifies a list item: a tool's or prompt's name, a
// resource's URI, a template's uriTemplate. An item that is not an object
// has no key (the doctor flags it).
func itemKey(method string, raw json.RawMessage) string {
	var it struct {
		Name        string `json:"name"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return ""
	}
	switch method {
	case mcp.MethodResourcesList:
		return it.URI
	case mcp.MethodResourceTemplatesList:
		return it.URITemplate
	}
	return it.Name
}

// diffLists says what changed between two versions of a list: added,
// removed, and changed items (for tools: whether inputSchema or
// outputSchema differ).
func diffLists(method string, old, cur []json.RawMessage) Diff {
	before := map[string]json.RawMessage{}
	for _, raw := range old {
		before[itemKey(method, raw)] = raw
	}
	var d Diff
	seen := map[string]bool{}
	for _, raw := range cur {
		k := itemKey(method, raw)
		seen[k] = true
		prev, ok := before[k]
		switch {
		case !ok:
			d.Added = append(d.Added, k)
		case !sameJSON(prev, raw):
			if method == mcp.MethodToolsList {
				k += " (" + toolChange(prev, raw) + ")"
			}
			d.Changed = append(d.Changed, k)
		}
	}
	for k := range before {
		if !seen[k] {
			d.Removed = append(d.Removed, k)
		}
	}
	sort.Strings(d.Removed)
	return d
}

func toolChange(a, b json.RawMessage) string {
	var x, y struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return "changed"
	}
	if !sameJSON(x.InputSchema, y.InputSchema) || !sameJSON(x.OutputSchema, y.OutputSchema) {
		return "schema changed"
	}
	return "description or annotations changed"
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
