package panes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

func diagFixture(p *Diagnostics) (*mcp.Frame, *mcp.Frame) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	banner := &mcp.Frame{Seq: 1, Time: t0, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Raw: []byte("bad server v1 starting")}
	notif := &mcp.Frame{Seq: 4, Time: t0, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/tools/list_changed", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)}
	p.Add(&mcp.Diagnostic{Rule: "capabilities/list-changed-without-capability", Severity: mcp.SeverityError, Frames: []int64{4},
		Message: "notifications/tools/list_changed sent without tools.listChanged", Why: "Clients ignore it: the new tools are never listed.",
		Fix: `Declare "tools": {"listChanged": true}.`, SpecRef: "server/tools#list-changed-notification"}, []*mcp.Frame{notif})
	p.Add(&mcp.Diagnostic{Rule: "framing/non-json-stdout", Severity: mcp.SeverityError, Frames: []int64{1},
		Message: "stdout line 1 is not JSON-RPC: \x1b[31mbad server v1 starting", Why: "Clients parse stdout line by line as JSON-RPC and drop the line.",
		Fix: "Write logs to stderr.", SpecRef: "basic/transports#stdio"}, []*mcp.Frame{banner})
	p.Add(&mcp.Diagnostic{Rule: "framing/non-json-stdout", Severity: mcp.SeverityError, Frames: []int64{9},
		Message: "stdout line 9 is not JSON-RPC", Why: "Clients drop the line.", Fix: "Write logs to stderr.", SpecRef: "basic/transports#stdio"}, []*mcp.Frame{nil})
	p.Add(&mcp.Diagnostic{Rule: "lifecycle/stderr-hint", Severity: mcp.SeverityHint, Message: "the server logged an error on stderr", Why: "Worth a look.", Fix: "Read it."}, nil)
	return banner, notif
}

// Goldens of the pane alone at 80×24 and 120×35, dark and light, with a
// rule open and an occurrence selected.
func TestDiagnosticsGoldens(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				p := NewDiagnostics(themes.Default(dark), keymap.Default())
				p.SetSize(sz.w, sz.h)
				p.Focus()
				diagFixture(p)
				p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
				p.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
				p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
				v := p.View()
				if strings.Contains(v, "\x1b[31mbad") {
					t.Fatal("a server string reached the view unsanitised")
				}
				golden.RequireEqual(t, v)
			})
		}
	}
}

func TestDiagnosticsEnterJumpsAndCounts(t *testing.T) {
	p := NewDiagnostics(themes.Dark(), keymap.Default())
	p.SetSize(80, 24)
	banner, _ := diagFixture(p)
	if e, w, h := p.Counts(); e != 3 || w != 0 || h != 1 {
		t.Fatalf("counts %d %d %d", e, w, h)
	}
	if got := p.Rules(); got[0] != "capabilities/list-changed-without-capability" || got[2] != "lifecycle/stderr-hint" {
		t.Fatalf("order %v: errors first, then first seen", got)
	}
	if len(p.Of(banner)) != 1 {
		t.Fatal("the banner frame has no diagnostic")
	}
	p.Select("framing/non-json-stdout")
	cmd := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter on an occurrence did nothing")
	}
	if msg, ok := cmd().(ShowFrameMsg); !ok || msg.Frame != banner {
		t.Fatalf("enter sent %#v", msg)
	}
	// The occurrence whose frame is not in this session says so.
	p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if cmd := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); cmd != nil {
		t.Fatal("enter on an occurrence without a frame should not jump")
	}
	if v := ansi.Strip(p.View()); !strings.Contains(v, "#9 (not in this session)") || !strings.Contains(v, "no frame") {
		t.Fatalf("frameless occurrence not explained:\n%s", v)
	}
}

// 500 diagnostics of one rule are a list: G reaches the last occurrence,
// PgUp/PgDn page, the wheel scrolls, enter opens the occurrence's frame,
// and a long message scrolls sideways (shift+→) or wraps (W).
func TestDiagnosticsLongListScrolls(t *testing.T) {
	p := NewDiagnostics(themes.Dark(), keymap.Default())
	p.SetSize(80, 24)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	frames := make([]*mcp.Frame, 500)
	for i := range frames {
		frames[i] = &mcp.Frame{Seq: int64(i + 1), Time: t0, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Raw: []byte("junk")}
		msg := fmt.Sprintf("stdout line %d is not JSON-RPC", i+1)
		if i == 499 {
			msg += strings.Repeat(" and more", 20) + " LAST-WORD"
		}
		p.Add(&mcp.Diagnostic{Rule: "framing/non-json-stdout", Severity: mcp.SeverityError, Frames: []int64{int64(i + 1)}, Message: msg}, []*mcp.Frame{frames[i]})
	}
	listRows := func() string {
		v := ansi.Strip(p.View())
		return v[:strings.Index(v, "│───────")] // the list, above the explanation
	}
	p.Update(keyPress("enter")) // open the rule
	p.Update(keyPress("G"))
	if v := listRows(); !strings.Contains(v, "#500 ") || !strings.Contains(v, "501/501") {
		t.Fatalf("G did not reach the last occurrence:\n%s", v)
	}
	cmd := p.Update(keyPress("enter"))
	if cmd == nil {
		t.Fatal("enter on the last occurrence opened nothing")
	}
	if m, ok := cmd().(ShowFrameMsg); !ok || m.Frame != frames[499] {
		t.Fatalf("enter sent %#v, want frame #500", cmd())
	}
	if v := listRows(); strings.Contains(v, "LAST-WORD") {
		t.Fatalf("the long message was not cut:\n%s", v)
	}
	for range 10 {
		p.Update(tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModShift})
	}
	if v := listRows(); !strings.Contains(v, "LAST-WORD") {
		t.Fatalf("shift+→ did not scroll the long message sideways:\n%s", v)
	}
	for range 10 {
		p.Update(tea.KeyPressMsg{Code: tea.KeyLeft, Mod: tea.ModShift})
	}
	p.Update(keyPress("g"))
	p.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	p.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if v := listRows(); !strings.Contains(v, "23/501") || strings.Contains(v, "framing/non-json-stdout") {
		t.Fatalf("pgdown did not page:\n%s", v)
	}
	p.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if v := listRows(); !strings.Contains(v, "26/501") {
		t.Fatalf("the wheel did not move by 3:\n%s", v)
	}
	p.Update(keyPress("G"))
	p.Update(keyPress("W"))
	if v := listRows(); !strings.Contains(v, "LAST-WORD") {
		t.Fatalf("W did not wrap the long message:\n%s", v)
	}
}

// An empty pane has no key to wrap or scroll, so its explanation is folded
// to the pane whole at a narrow width instead of cut.
func TestEmptyDiagnosticsReadsWholeWhenNarrow(t *testing.T) {
	p := NewDiagnostics(themes.Dark(), keymap.Default())
	p.SetSize(40, 12)
	v := ansi.Strip(p.View())
	if strings.Contains(v, "…") {
		t.Fatalf("the empty pane cut its text:\n%s", v)
	}
	words := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╰", " ", "─", " ", "╮", " ", "╯", " ").Replace(v)), " ")
	if !strings.Contains(words, "E, W or H badge in the log.") {
		t.Fatalf("the explanation is not there whole:\n%s", v)
	}
}
