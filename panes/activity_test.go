package panes

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/themes"
)

// The activity pane is a panes/list list: with more requests than rows,
// g/G, PgUp/PgDn and the wheel move through them, a long row scrolls
// sideways, and enter opens a request's answer frame (or, with none yet,
// what is known of it).
func TestActivityScrollsAndOpens(t *testing.T) {
	a := NewActivity(themes.Dark(), keymap.Default())
	a.SetSize(60, 12)
	a.Focus()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a.SetNow(t0)
	answers := map[int]*mcp.Frame{}
	for i := range 100 {
		label := fmt.Sprintf("tools/call op-%03d", i)
		if i == 0 {
			label += strings.Repeat(" with a very long label", 5) + " FIRST-END"
		}
		a.Start(Op{ID: i + 1, Label: label, Started: t0.Add(-time.Second)})
		if i < 99 {
			a.End(i+1, OpOK, t0, 0)
			answers[i+1] = &mcp.Frame{Seq: int64(1000 + i), Dir: mcp.Inbound, Kind: mcp.KindResponse}
			a.Answered(i+1, answers[i+1])
		}
	}
	view := func() string { return ansi.Strip(a.View()) }
	if v := view(); !strings.Contains(v, "op-099") || !strings.Contains(v, "100/100") {
		t.Fatalf("the newest request is not selected and shown:\n%s", v)
	}
	cmd := a.Update(keyPress("enter"))
	if cmd == nil {
		t.Fatal("enter on a running request opened nothing")
	}
	if m, ok := cmd().(OpenLinesMsg); !ok || !strings.Contains(ansi.Strip(strings.Join(m.Lines, "\n")), "running") {
		t.Fatalf("enter on a running request sent %#v", cmd())
	}
	a.Update(keyPress("g"))
	if v := view(); !strings.Contains(v, "op-000") || strings.Contains(v, "FIRST-END") {
		t.Fatalf("g did not go to the first request, or its long row was not cut:\n%s", v)
	}
	for range 10 {
		a.Update(keyPress("right"))
	}
	if v := view(); !strings.Contains(v, "FIRST-END") {
		t.Fatalf("→ did not scroll the long row sideways:\n%s", v)
	}
	for range 10 {
		a.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	}
	a.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	a.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if v := view(); !strings.Contains(v, "13/100") {
		t.Fatalf("pgdown then the wheel did not move to the 13th request:\n%s", v)
	}
	cmd = a.Update(keyPress("enter"))
	if cmd == nil {
		t.Fatal("enter on an answered request opened nothing")
	}
	if m, ok := cmd().(OpenFrameMsg); !ok || m.Frame != answers[13] {
		t.Fatalf("enter sent %#v, want the 13th request's answer", cmd())
	}
	a.Update(keyPress("G"))
	if v := view(); !strings.Contains(v, "op-099") {
		t.Fatalf("G did not reach the last request:\n%s", v)
	}
}

// More roots than rows scroll: the cursor stays on screen as it moves
// down (the pane drew every root and the cursor went off the bottom),
// G reaches the last and a long URI scrolls sideways.
func TestRootsScroll(t *testing.T) {
	var roots []policy.Root
	for i := range 40 {
		roots = append(roots, policy.Root{URI: fmt.Sprintf("file:///srv/project-%02d", i), Name: fmt.Sprintf("p%02d", i)})
	}
	roots[39].URI += strings.Repeat("/deeper", 12) + "/LAST"
	r := NewRoots(themes.Dark(), keymap.Default(), roots)
	r.SetSize(60, 12)
	r.Focus()
	view := func() string { return ansi.Strip(r.View()) }
	for range 15 {
		r.Update(keyPress("j"))
	}
	if v := view(); !strings.Contains(v, "▸ file:///srv/project-15") {
		t.Fatalf("the cursor went off screen:\n%s", v)
	}
	r.Update(keyPress("G"))
	if v := view(); !strings.Contains(v, "project-39") || strings.Contains(v, "LAST") || !strings.Contains(v, "40/40") {
		t.Fatalf("G did not reach the last root, or its URI was not cut:\n%s", v)
	}
	for range 10 {
		r.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	}
	if v := view(); !strings.Contains(v, "LAST") {
		t.Fatalf("→ did not scroll the long URI sideways:\n%s", v)
	}
	r.Update(keyPress("d"))
	if len(r.List()) != 39 || r.List()[38].URI != "file:///srv/project-38" {
		t.Fatalf("d deleted the wrong root: %d left", len(r.List()))
	}
}

// A finished request's time is its latency as the log and the result view
// give it: 47ms and 2ms, not "100ms" and "0s" (the elapsed time rounded to
// a tenth of a second, from when the UI heard of the end).
func TestActivityTimesAgreeWithTheLog(t *testing.T) {
	a := NewActivity(themes.Dark(), keymap.Default())
	a.SetSize(80, 10)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a.SetNow(t0)
	a.Start(Op{ID: 1, Label: "tools/call slow", Started: t0})
	a.Start(Op{ID: 2, Label: "tools/call quick", Started: t0})
	a.Start(Op{ID: 3, Label: "tools/call running", Started: t0.Add(-1500 * time.Millisecond)})
	a.End(1, OpOK, t0.Add(98*time.Millisecond), 47*time.Millisecond)
	a.End(2, OpOK, t0.Add(30*time.Millisecond), 2*time.Millisecond+300*time.Microsecond)
	v := ansi.Strip(a.View())
	for _, want := range []string{"tools/call slow " + fmtLatency(47*time.Millisecond), "tools/call quick 2ms", "tools/call running 1.5s"} {
		if !strings.Contains(v, want) {
			t.Errorf("activity lacks %q:\n%s", want, v)
		}
	}
}
