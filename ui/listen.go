package ui

import (
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
)

// listenLifetime bounds a subscriptions/listen stream: it has no answer
// until it ends, so it must not time out like a request.
const listenLifetime = 24 * time.Hour

// listen subscribes or unsubscribes a resource in the modern era
// (2026-07-28), where subscriptions/listen replaces resources/subscribe: the
// current stream is cancelled and a new one is opened with the new set of
// URIs (and the list-changed notifications), or none when the set is empty.
func (m *Model) listen(msg panes.SubscribeMsg) tea.Cmd {
	if msg.On {
		m.listenURIs[msg.URI] = true
	} else {
		delete(m.listenURIs, msg.URI)
	}
	if old, ok := m.ops[m.listenOp]; ok && old.cancel != nil {
		old.superseded = true
		old.cancel()
	}
	m.listenOp = 0
	m.resources.SetSubscribed(msg.URI, msg.On, nil)
	if len(m.listenURIs) == 0 {
		m.setNote("unsubscribed "+msg.URI+" (subscriptions/listen stream closed)", true)
		return nil
	}
	uris := make([]string, 0, len(m.listenURIs))
	for u := range m.listenURIs {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	o := &op{kind: opListen, label: "subscriptions/listen " + strings.Join(uris, " "), method: mcp.MethodSubscriptionsListen,
		timeout: listenLifetime, uri: msg.URI, on: msg.On,
		params: map[string]any{"notifications": map[string]any{
			"toolsListChanged":      true,
			"promptsListChanged":    true,
			"resourcesListChanged":  true,
			"resourceSubscriptions": uris,
		}}}
	cmd := m.startOp(o)
	m.listenOp = o.id
	m.setNote("listening for updates of "+strings.Join(uris, ", ")+" (subscriptions/listen)", true)
	return cmd
}
