package panes

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// detailFixture opens the failing tools/call response of the log fixture.
func detailFixture(dark bool, w, h int) (*Log, *Detail) {
	l := newFixtureLog(dark, w, h)
	d := NewDetail(themes.Default(dark), keymap.Default(), l.Paired)
	d.SetSize(w, h)
	d.Focus()
	l.SetFilter("kind:error")
	d.SetFrame(l.Selected())
	l.SetFilter("")
	return l, d
}

func TestDetailView(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range logSizes {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				_, d := detailFixture(dark, sz.w, sz.h)
				v := d.View()
				logAssertSize(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

func TestDetailRawAndPaired(t *testing.T) {
	_, d := detailFixture(true, 120, 35)
	if !strings.Contains(ansi.Strip(d.View()), `"message": "unknown tool: nope"`) {
		t.Fatalf("pretty view lacks the indented error:\n%s", ansi.Strip(d.View()))
	}
	d.Update(logKey("v"))
	if !strings.Contains(ansi.Strip(d.View()), `{"jsonrpc":"2.0","id":3,"error"`) {
		t.Fatal("raw view does not show the raw bytes")
	}
	d.Update(logKey("p"))
	if f := d.Frame(); f == nil || f.Kind != mcp.KindRequest || f.Method != "tools/call" {
		t.Fatalf("p opened %+v, want the tools/call request", f)
	}
	d.Update(logKey("p"))
	if f := d.Frame(); f.Kind != mcp.KindErrorResponse {
		t.Fatalf("p from the request opened %v, want the error response", f.Kind)
	}
}

func TestDetailCopy(t *testing.T) {
	_, d := detailFixture(true, 80, 24)
	cmd := d.Update(logKey("c"))
	if cmd == nil {
		t.Fatal("c gave no command")
	}
	// tea.SetClipboard's message type is unexported; check its text.
	if got := fmt.Sprintf("%v", cmd()); !strings.Contains(got, "unknown tool: nope") {
		t.Fatalf("clipboard message %q lacks the frame", got)
	}
	if !strings.Contains(d.Title(), "copied") {
		t.Errorf("title %q does not confirm the copy", d.Title())
	}
}

func TestDetailInvalidShowsProblemAndRaw(t *testing.T) {
	d := NewDetail(themes.Dark(), keymap.Default(), nil)
	d.SetSize(80, 12)
	d.SetFrame(&mcp.Frame{Seq: 5, Time: logT0, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Problem: "invalid JSON: unexpected end", Raw: []byte(`{"jsonrpc":"2.0","id":`)})
	v := ansi.Strip(d.View())
	for _, want := range []string{"problem: invalid JSON: unexpected end", `{"jsonrpc":"2.0","id":`, "raw", "← not a JSON-RPC message  size"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// Said once, in words: not "← invalid invalid id —".
	if strings.Contains(v, "invalid invalid") || strings.Contains(v, "id —") {
		t.Errorf("the header repeats itself or shows an empty id:\n%s", v)
	}
	d = NewDetail(themes.Dark(), keymap.Default(), nil)
	d.SetDiagnostics(func(*mcp.Frame) []*mcp.Diagnostic { return []*mcp.Diagnostic{{Rule: "framing/non-json-stdout"}} })
	d.SetSize(100, 12)
	d.SetFrame(&mcp.Frame{Seq: 5, Time: logT0, Dir: mcp.Inbound, Kind: mcp.KindInvalid, Problem: "not JSON", Raw: []byte(`hello`)})
	if v := ansi.Strip(d.View()); strings.Contains(v, "diagnostic(s)") || !strings.Contains(v, "the doctor found 1 problem in this frame") {
		t.Errorf("the header's count of findings:\n%s", v)
	}
}

// A 20 MB frame must open at once: SetFrame defers formatting to a Cmd, and
// View draws only the visible slice.
func TestDetailHugeFrameOpensAtOnce(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"content":[`)
	for b.Len() < 20<<20 {
		b.WriteString(`{"type":"text","text":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},`)
	}
	b.WriteString(`{"type":"text","text":"end"}]}}`)
	f := &mcp.Frame{Seq: 2, Time: logT0, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "1", Raw: b.Bytes()}
	d := NewDetail(themes.Dark(), keymap.Default(), nil)
	d.SetSize(120, 35)
	start := time.Now()
	cmd := d.SetFrame(f)
	v := d.View()
	opened := time.Since(start)
	if cmd == nil {
		t.Fatal("a 20 MB frame was formatted on the UI goroutine")
	}
	if !strings.Contains(ansi.Strip(v), "formatting a large frame") {
		t.Errorf("no note while formatting:\n%s", ansi.Strip(v))
	}
	// Only the visible slice is drawn: opening costs microseconds; the
	// bound is generous for slow, loaded machines.
	if opened > 200*time.Millisecond {
		t.Errorf("opening took %v", opened)
	}
	start = time.Now()
	msg := cmd()
	t.Logf("20 MB frame: opened in %v, formatted off the UI goroutine in %v", opened, time.Since(start))
	d.Update(msg)
	start = time.Now()
	d.Update(logKey("G"))
	v = d.View()
	if el := time.Since(start); el > 500*time.Millisecond { // microseconds when quiet; generous for loaded CI
		t.Errorf("drawing the end of a formatted 20 MB frame took %v", el)
	}
	if !strings.Contains(ansi.Strip(v), `"text": "end"`) {
		t.Errorf("the end of the frame is not shown:\n%s", ansi.Strip(v))
	}
}
