package panes

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// appTools are a tool with a view as the real basic servers send it, one
// for views alone, and one without a view.
func appTools() []mcp.Tool {
	return mcp.ParseTools([]json.RawMessage{
		json.RawMessage(`{"name":"get-time","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}}`),
		json.RawMessage(`{"name":"refresh","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://get-time/mcp-app.html","visibility":["app","cron"]}}}`),
		json.RawMessage(`{"name":"plain","inputSchema":{"type":"object"}}`),
	})
}

// The Tools pane marks a tool with a view and one for views alone, and
// its details say which template, in which dialect, for whom.
func TestToolsMarkViewsAndVisibility(t *testing.T) {
	p := NewTools(themes.Dark(), keymap.Default())
	p.SetSize(120, 35)
	p.Focus()
	p.SetTools(appTools())
	rows := map[string]string{}
	for _, l := range strings.Split(ansi.Strip(p.View()), "\n") {
		for _, name := range []string{"get-time", "refresh", "plain"} {
			if strings.Contains(l, " "+name+" ") {
				rows[name] = l
			}
		}
	}
	if !strings.Contains(rows["get-time"], "view") || strings.Contains(rows["get-time"], "app only") {
		t.Errorf("get-time's row: %q", rows["get-time"])
	}
	if !strings.Contains(rows["refresh"], "view") || !strings.Contains(rows["refresh"], "app only") {
		t.Errorf("refresh's row: %q", rows["refresh"])
	}
	if strings.Contains(rows["plain"], "view") {
		t.Errorf("plain's row: %q", rows["plain"])
	}
	details := ansi.Strip(strings.Join(p.DetailLines(), "\n"))
	for _, want := range []string{"App view", "template ui://get-time/mcp-app.html (MCP Apps, text/html;profile=mcp-app)",
		`_meta["ui/resourceUri"] (deprecated) ui://get-time/mcp-app.html`, "visibility [model, app]: the model and views (the default)"} {
		if !strings.Contains(details, want) {
			t.Errorf("get-time's details lack %q:\n%s", want, details)
		}
	}
	p.Update(press("down"))
	p.View()
	details = ansi.Strip(strings.Join(p.DetailLines(), "\n"))
	for _, want := range []string{"visibility [app, cron]: views only: a host keeps it from the model", "unknown visibility value cron"} {
		if !strings.Contains(details, want) {
			t.Errorf("refresh's details lack %q:\n%s", want, details)
		}
	}
	p.Update(press("down"))
	p.View()
	if details := ansi.Strip(strings.Join(p.DetailLines(), "\n")); strings.Contains(details, "App view") {
		t.Errorf("plain has an App view section:\n%s", details)
	}
}

// A ui:// resource's row says what it asks of its host, and a read's
// content item's _meta.ui takes the listing's place.
func TestResourcesShowUIMeta(t *testing.T) {
	r := NewResources(themes.Dark(), keymap.Default())
	r.SetSize(200, 20)
	r.SetPage("resources/list", []json.RawMessage{
		json.RawMessage(`{"uri":"ui://w/app.html","name":"app","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":["https://api.x.com"],"resourceDomains":["https://cdn.x.com"]},"permissions":{"camera":{}},"domain":"w.example","prefersBorder":true}}}`),
		json.RawMessage(`{"uri":"ui://w/bare.html","name":"bare","mimeType":"text/html;profile=mcp-app"}`),
		json.RawMessage(`{"uri":"demo://readme","name":"readme","mimeType":"text/markdown"}`),
	}, true, "")
	row := func(i int) string { return ansi.Strip(r.resourceRow(i)) }
	if got := row(0); !strings.Contains(got, "app view csp: connect https://api.x.com; resource https://cdn.x.com · permissions: camera · domain: w.example · prefersBorder: true") {
		t.Errorf("app's row: %q", got)
	}
	if got := row(1); !strings.Contains(got, "app view csp: none declared") {
		t.Errorf("bare's row: %q", got)
	}
	if got := row(2); strings.Contains(got, "app view") {
		t.Errorf("readme's row: %q", got)
	}
	r.SetRead("ui://w/bare.html", json.RawMessage(`{"contents":[{"uri":"ui://w/bare.html","mimeType":"text/html;profile=mcp-app","text":"<p>","_meta":{"ui":{"csp":{"connectDomains":["wss://rt.x.com"]}}}}]}`))
	if got := row(1); !strings.Contains(got, "csp: connect wss://rt.x.com") {
		t.Errorf("bare's row after the read: %q", got)
	}
}

// The capabilities tree explains the extension and counts the tools with
// a view.
func TestCapsExplainsMCPApps(t *testing.T) {
	c := NewCaps(themes.Dark(), keymap.Default())
	c.SetSize(160, 30)
	c.Focus()
	c.SetHandshake(&mcp.Handshake{ServerCapabilities: json.RawMessage(`{"tools":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`)})
	var raws []json.RawMessage
	for _, tl := range appTools() {
		raws = append(raws, tl.Raw)
	}
	c.SetList("tools/list", raws)
	c.MoveBy(1) // the discovered tools, which start closed
	c.SetExpanded(true)
	v := ansi.Strip(c.View())
	for _, want := range []string{"io.modelcontextprotocol/ui  MCP Apps:", `mimeTypes: ["text/html;profile=mcp-app"]`, "3 tools (2 with a view)", "get-time ▣", "refresh ▣"} {
		if !strings.Contains(v, want) {
			t.Errorf("the tree lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "plain ▣") {
		t.Errorf("plain is marked:\n%s", v)
	}
}
