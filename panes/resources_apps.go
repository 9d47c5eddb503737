package panes

import (
	"encoding/json"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// readUIMeta keeps, by URI, the _meta.ui of each item a resources/read
// returned: the spec has a host prefer it to the listing's.
func (r *Resources) readUIMeta(result json.RawMessage) {
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	for _, item := range res.Contents {
		var it struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(item, &it) != nil || it.URI == "" {
			continue
		}
		if r.readMeta == nil {
			r.readMeta = map[string]apps.ResourceMeta{}
		}
		r.readMeta[it.URI] = apps.ParseResource(item)
	}
}

// appSummary is what a view's resource asks of its host, for its row:
// "" for a resource that is no view and declares nothing.
func (r *Resources) appSummary(res *mcp.Resource) string {
	listed := apps.ParseResource(res.Raw)
	m := apps.Effective(listed, r.readMeta[res.URI])
	view := apps.IsUIURI(res.URI) || apps.DialectOfMIME(res.MimeType) != apps.DialectNone
	if !view && !m.Declared() && len(m.Malformed) == 0 {
		return ""
	}
	var parts []string
	if c := m.CSP; c != nil {
		var csp []string
		for _, d := range []struct {
			name string
			list []string
		}{{"connect", c.ConnectDomains}, {"resource", c.ResourceDomains}, {"frame", c.FrameDomains}, {"baseUri", c.BaseURIDomains}} {
			if len(d.list) > 0 {
				csp = append(csp, d.name+" "+strings.Join(d.list, " "))
			}
		}
		if len(csp) == 0 {
			csp = []string{"no domains"}
		}
		parts = append(parts, "csp: "+strings.Join(csp, "; "))
	} else if view {
		parts = append(parts, "csp: none declared (the spec's default: no network)")
	}
	if p := m.Permissions; p != nil && len(p.Names()) > 0 {
		parts = append(parts, "permissions: "+strings.Join(p.Names(), ", "))
	}
	if m.Domain != "" {
		parts = append(parts, "domain: "+m.Domain)
	}
	if m.PrefersBorder != nil {
		if *m.PrefersBorder {
			parts = append(parts, "prefersBorder: true")
		} else {
			parts = append(parts, "prefersBorder: false")
		}
	}
	if m.FromOpenAI {
		parts = append(parts, "(openai/widget* keys)")
	}
	parts = append(parts, m.Malformed...)
	return termsafe.String(strings.Join(parts, " · "))
}
