package panes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

func fixtureHandshake() *mcp.Handshake {
	return &mcp.Handshake{
		Era:                mcp.EraLegacy,
		OfferedVersion:     "2025-11-25",
		ProtocolVersion:    "2025-06-18",
		ClientCapabilities: mcp.DefaultClientCapabilities(),
		ClientInfo:         mcp.Implementation{Name: "mcpscope", Version: "0.1.0"},
		ServerCapabilities: json.RawMessage(`{"tools":{"listChanged":true},"logging":{},"resources":{"subscribe":true}}`),
		ServerInfo: mcp.Implementation{
			Name: "weather-server", Title: "Weather", Version: "1.2.3",
			Description: "Forecasts and current conditions.",
			WebsiteURL:  "https://weather.example.com",
			Icons:       []mcp.Icon{{Src: "https://weather.example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}}},
		},
		Instructions: "Call get_weather with a city name. Temperatures are in Celsius unless units is imperial.",
		Result:       json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"weather-server","version":"1.2.3"}}`),
		Duration:     42 * time.Millisecond,
	}
}

func newFixtureHandshake(dark bool, w, h int) *Handshake {
	p := NewHandshake(themes.Default(dark), keymap.Default())
	p.SetSize(w, h)
	p.Focus()
	p.SetHandshake(fixtureHandshake())
	return p
}

func TestHandshakeView(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		return newFixtureHandshake(dark, w, h)
	})
}

func TestHandshakeContent(t *testing.T) {
	p := newFixtureHandshake(true, 120, 35)
	v := ansi.Strip(strings.Join(p.lines, "\n"))
	for _, want := range []string{
		"offered     2025-11-25",
		"answered    2025-06-18  the server answered another version",
		"took        42ms",
		"weather-server 1.2.3",
		"elicitation.form", "roots.listChanged: true", // client offered
		"resources.subscribe: true", "tools.listChanged: true", // server granted
		"Call get_weather with a city name",
		"https://weather.example.com/icon.png (image/png 48x48)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("handshake view lacks %q:\n%s", want, v)
		}
	}
	p.Update(press("G"))
	if got := ansi.Strip(p.View()); !strings.Contains(got, `"serverInfo"`) {
		t.Errorf("G did not scroll to the raw result:\n%s", got)
	}
	if cmd := p.Update(press("esc")); cmd == nil {
		t.Error("esc does not close")
	} else if _, ok := cmd().(CloseMsg); !ok {
		t.Error("esc did not send CloseMsg")
	}
}

func TestHandshakeModern(t *testing.T) {
	h := fixtureHandshake()
	h.Era = mcp.EraModern
	h.ProtocolVersion, h.OfferedVersion = "2026-07-28", "2026-07-28"
	h.SupportedVersions = []string{"2026-07-28", "2025-11-25"}
	h.Meta = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
	h.ProbeOutcome = "server/discover answered: modern"
	p := NewHandshake(themes.Default(true), keymap.Default())
	p.SetSize(120, 35)
	p.SetHandshake(h)
	v := ansi.Strip(strings.Join(p.lines, "\n"))
	for _, want := range []string{"supported   2026-07-28, 2025-11-25", "auto probe  server/discover answered: modern", "_meta sent on every request", `"io.modelcontextprotocol/protocolVersion": "2026-07-28"`, "server/discover result"} {
		if !strings.Contains(v, want) {
			t.Errorf("modern view lacks %q:\n%s", want, v)
		}
	}
}

func TestHandshakeSecurity(t *testing.T) {
	h := fixtureHandshake()
	h.ServerInfo.Name = "srv\x1b]0;pwned\x07"
	h.ServerInfo.Description = "clears \x1b[2J"
	h.Instructions = "copy \x1b]52;c;aGk=\x07 now"
	h.ServerCapabilities = json.RawMessage(`{"x\u001b[2J":{}}`)
	p := NewHandshake(themes.Default(true), keymap.Default())
	p.SetSize(120, 35)
	p.SetHandshake(h)
	v := p.View()
	assertPaneSize(t, v, 120, 35)
	assertNoRawEscapes(t, v, `srv\x1b]0;pwned\x07`, `clears \x1b[2J`, `copy \x1b]52;c;aGk=\x07 now`, `x\x1b[2J`)
}

// The handshake view is a panes/list view: it pages, and the long lines
// of the raw result scroll sideways or wrap.
func TestHandshakePagesAndScrollsSideways(t *testing.T) {
	hs := fixtureHandshake()
	long := strings.Repeat("a very long instruction ", 12) + "END"
	hs.Result = json.RawMessage(`{"protocolVersion":"2025-06-18","instructions":"` + long + `"}`)
	p := NewHandshake(themes.Dark(), keymap.Default())
	p.SetSize(60, 15)
	p.Focus()
	p.SetHandshake(hs)
	first := func() string { return strings.Split(ansi.Strip(p.View()), "\n")[1] }
	if !strings.Contains(first(), "Protocol") {
		t.Fatalf("the view does not start at the top: %q", first())
	}
	p.Update(press("pgdown"))
	if f := first(); strings.Contains(f, "Protocol") || !strings.Contains(ansi.Strip(p.View()), "· 13-25 of") {
		t.Fatalf("pgdown did not page (first row %q):\n%s", f, ansi.Strip(p.View()))
	}
	p.Update(press("G"))
	if v := ansi.Strip(p.View()); !strings.Contains(v, `"instructions"`) || strings.Contains(v, "END") {
		t.Fatalf("G: the long result line is not there, cut:\n%s", v)
	}
	for range 20 {
		p.Update(press("right"))
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "END") {
		t.Fatalf("→ did not scroll the long line sideways:\n%s", v)
	}
	p.Update(press("W"))
	p.Update(press("G"))
	if v := ansi.Strip(p.View()); !strings.Contains(v, "END") || !strings.Contains(v, "wrap") {
		t.Fatalf("W did not wrap the long line:\n%s", v)
	}
}
