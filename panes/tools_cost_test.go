package panes

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/themes"
)

func costTools(t *testing.T, objs ...string) []mcp.Tool {
	t.Helper()
	var raws []json.RawMessage
	for _, o := range objs {
		raws = append(raws, json.RawMessage(o))
	}
	return mcp.ParseTools(raws)
}

// setCounted sets a list and runs the count its Cmd does.
func setCounted(t *testing.T, p *Tools, tools []mcp.Tool) {
	t.Helper()
	cmd := p.SetTools(tools)
	if cmd == nil {
		t.Fatal("SetTools gave no count")
	}
	p.Update(cmd())
}

var (
	small = `{"name":"small","description":"a","inputSchema":{"type":"object"}}`
	big   = `{"name":"big","description":"` + strings.Repeat("many words here ", 40) + `","inputSchema":{"type":"object"}}`
)

// The list shows each tool's cost and the title the list's; $ puts the
// costliest first.
func TestToolsShowTheirCost(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(80, 20)
	p.Focus()
	tools := costTools(t, small, big)
	p.SetTools(tools)
	if strings.Contains(p.Title(), "tok") {
		t.Fatalf("a cost in the title before the count: %q", p.Title())
	}
	setCounted(t, p, tools)
	total := tokens.List([]json.RawMessage{tools[0].Raw, tools[1].Raw})
	want := clients.Present(clients.Generic, clients.Input{Tools: tools}).Tokens
	if title := p.Title(); !strings.Contains(title, "· "+strconv.Itoa(want)+" tok") {
		t.Errorf("title %q, want the list's %d tokens", title, want)
	}
	if want != total.Total {
		t.Errorf("the view's total %d is not the list's %d", want, total.Total)
	}
	screen := ansi.Strip(p.View())
	for i, name := range []string{"small", "big"} {
		n := total.Tools[i].Tokens
		if !regexp.MustCompile(`(?m)` + name + `\s.*\s` + strconv.Itoa(n) + `\s*│`).MatchString(screen) {
			t.Errorf("no row %s with %d tokens:\n%s", name, n, screen)
		}
	}
	if sel, _ := p.Selected(); sel.Name != "small" {
		t.Fatalf("selected %s", sel.Name)
	}
	p.Update(press("$"))
	if rows := ansi.Strip(p.View()); strings.Index(rows, "big") > strings.Index(rows, "small") {
		t.Errorf("$ did not put big first:\n%s", rows)
	}
	if sel, _ := p.Selected(); sel.Name != "small" {
		t.Errorf("the selection moved to %s", sel.Name)
	}
	if !strings.Contains(strings.Join(p.DetailLines(), "\n"), "tokens") {
		t.Errorf("the details do not say the cost: %v", p.DetailLines())
	}
}

// v picks a client: the list as Claude presents it (names the model
// sees, a dot made _ rather than refused), and as ChatGPT after the list changed (the stale
// tools marked, a removed one named).
func TestToolsAsAClientSeesThem(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(100, 24)
	p.Focus()
	p.SetServer(mcp.Implementation{Name: "demo/srv"})
	first := costTools(t, small, `{"name":"files.read","description":"reads","inputSchema":{"type":"object"}}`, `{"name":"old","inputSchema":{"type":"object"}}`)
	setCounted(t, p, first)

	pick := func(name string) {
		t.Helper()
		p.Update(press("v"))
		if !p.Capturing() || !strings.Contains(ansi.Strip(p.View()), "view as") {
			t.Fatalf("v opened no picker:\n%s", ansi.Strip(p.View()))
		}
		for i := 0; i < len(clients.All()) && !strings.Contains(ansi.Strip(p.View()), "["+name+"]"); i++ {
			p.Update(press("right"))
		}
		p.Update(press("enter"))
		if p.Capturing() || p.ViewAs().Name() != name {
			t.Fatalf("picked %s, viewing %s", name, p.ViewAs())
		}
	}
	pick("Claude Code")
	if title := p.Title(); !strings.HasPrefix(title, "Tools as Claude Code · 3 · ") {
		t.Errorf("title %q", title)
	}
	screen := ansi.Strip(p.View())
	if strings.Contains(screen, "✗ 1 left out") || !strings.Contains(screen, "nothing left out") {
		t.Errorf("the renamed files.read is counted out:\n%s", screen)
	}
	p.Select("files.read")
	details := ansi.Strip(strings.Join(p.DetailLines(), "\n"))
	for _, want := range []string{"the model sees mcp__demo-srv__files_read", "made _", "claude/prefix", "deferred"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q:\n%s", want, details)
		}
	}

	pick("ChatGPT")
	if s := ansi.Strip(p.View()); !strings.Contains(s, "nothing left out or stale") {
		t.Errorf("ChatGPT before a change:\n%s", s)
	}
	// The list changes (list_changed, a restart): small changes, new
	// comes, old goes.
	setCounted(t, p, costTools(t, `{"name":"small","description":"changed","inputSchema":{"type":"object"}}`,
		`{"name":"files.read","description":"reads","inputSchema":{"type":"object"}}`, `{"name":"new","inputSchema":{"type":"object"}}`))
	screen = ansi.Strip(p.View())
	for _, want := range []string{"3 stale", "⟲ 2 seen the old way", "removed, still offered: old"} {
		if !strings.Contains(screen, want) {
			t.Errorf("ChatGPT after the change lacks %q:\n%s", want, screen)
		}
	}
	marked := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "⟲") && (strings.Contains(l, "small") || strings.Contains(l, "new")) {
			marked++
		}
	}
	if marked != 2 {
		t.Errorf("%d stale rows marked, want 2:\n%s", marked, screen)
	}
	p.Select("new")
	if d := ansi.Strip(strings.Join(p.DetailLines(), "\n")); !strings.Contains(d, "ChatGPT users do not see it") {
		t.Errorf("details:\n%s", d)
	}
	// esc on the picker keeps the view.
	p.Update(press("v"))
	p.Update(press("esc"))
	if p.Capturing() || p.ViewAs() != clients.ChatGPT {
		t.Errorf("esc: capturing %v, view %s", p.Capturing(), p.ViewAs())
	}
}

// A count for an older list is dropped.
func TestToolsDropAnOldCount(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(80, 20)
	old := p.SetTools(costTools(t, small))
	setCounted(t, p, costTools(t, big))
	p.Update(old())
	if title := p.Title(); !strings.Contains(title, fmt.Sprintf("%d tok", clients.Present(clients.Generic, clients.Input{Tools: costTools(t, big)}).Tokens)) {
		t.Errorf("title %q after an old count came late", title)
	}
}
