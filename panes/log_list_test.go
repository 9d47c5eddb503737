package panes

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// logScrollKey is a key of the list: the arrows, the page keys, W.
func logScrollKey(s string) tea.KeyPressMsg {
	switch s {
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "W", "G":
		return tea.KeyPressMsg{Code: []rune(s)[0], Text: s, Mod: tea.ModShift}
	}
	return logKey(s)
}

// logBody is the pane's rows without the border, stripped.
func logBody(l *Log) []string {
	lines := strings.Split(ansi.Strip(l.View()), "\n")
	return lines[1 : len(lines)-1]
}

// A row longer than the pane can be read whole: ←/→ scroll it sideways
// and W wraps it, as in every other list, instead of cutting it with no
// way to see the rest.
func TestLogScrollsSidewaysAndWraps(t *testing.T) {
	for _, paired := range []bool{false, true} {
		t.Run(fmt.Sprintf("paired=%t", paired), func(t *testing.T) {
			l := newExchangeLog(true, 60, 20)
			if paired {
				l.TogglePaired()
			}
			const end = "and/a/file.txt" // the end of resources/read's long URI
			view := strings.Join(logBody(l), "\n")
			if strings.Contains(view, end) || !strings.Contains(view, "resources/read fil") {
				t.Fatalf("at 60 columns the URI should be cut:\n%s", view)
			}
			for i := 0; i < 10 && !strings.Contains(strings.Join(logBody(l), "\n"), end); i++ {
				l.Update(logScrollKey("right"))
			}
			view = strings.Join(logBody(l), "\n")
			if !strings.Contains(view, end) {
				t.Fatalf("→ never showed the end of the long row:\n%s", view)
			}
			if !strings.Contains(view, "…") || !strings.Contains(l.Title(), "→") {
				t.Errorf("scrolled sideways, rows start with … and the title says how far: %q\n%s", l.Title(), view)
			}
			for range 10 {
				l.Update(logScrollKey("left"))
			}
			if strings.Contains(l.Title(), "→") || strings.Contains(strings.Join(logBody(l), "\n"), end) {
				t.Fatalf("← did not come back to the start: %q", l.Title())
			}

			l.Update(logKey("g"))
			l.Update(logScrollKey("W"))
			body := logBody(l)
			joined := strings.Join(body, "\n")
			if !strings.Contains(l.Title(), "wrap") || !strings.Contains(joined, "a-rather-long") {
				t.Fatalf("W did not wrap (title %q):\n%s", l.Title(), joined)
			}
			// The row is folded, not cut: its pieces follow on the next row.
			for i, row := range body {
				if strings.Contains(row, "resources/read") {
					rest := strings.Join(body[i:min(i+3, len(body))], "")
					if !strings.Contains(strings.ReplaceAll(rest, " ", ""), "file.txt#3") {
						t.Errorf("the wrapped row does not go on to the URI's end and the id:\n%s", joined)
					}
					break
				}
			}
			if got := strings.Count(joined, "\n") + 1; got != 18 {
				t.Errorf("wrapped body has %d rows, want 18", got)
			}
			l.Update(logScrollKey("W"))
			if strings.Contains(l.Title(), "wrap") {
				t.Errorf("W again should unwrap: %q", l.Title())
			}
		})
	}
}

// Every scroll key moves the cursor on its own, in the frames view and in
// the exchanges view, and enter opens the row the cursor reached.
func TestLogEveryScrollKeyMovesInBothViews(t *testing.T) {
	for _, paired := range []bool{false, true} {
		t.Run(fmt.Sprintf("paired=%t", paired), func(t *testing.T) {
			l := logExchangesWith(600) // 120×35, the cursor mid-way
			if !paired {
				l.TogglePaired()
			}
			mid := l.cursor()
			steps := []struct {
				name string
				msg  tea.Msg
				want func(before int) bool
			}{
				{"k", logKey("k"), func(b int) bool { return l.cursor() == b-1 }},
				{"up", logKey("up"), func(b int) bool { return l.cursor() == b-1 }},
				{"j", logKey("j"), func(b int) bool { return l.cursor() == b+1 }},
				{"down", logKey("down"), func(b int) bool { return l.cursor() == b+1 }},
				{"pgup", logScrollKey("pgup"), func(b int) bool { return l.cursor() < b-10 }},
				{"pgdown", logScrollKey("pgdown"), func(b int) bool { return l.cursor() > b+10 }},
				{"wheel up", tea.MouseWheelMsg{Button: tea.MouseWheelUp}, func(b int) bool { return l.cursor() < b }},
				{"wheel down", tea.MouseWheelMsg{Button: tea.MouseWheelDown}, func(b int) bool { return l.cursor() > b }},
				{"g", logKey("g"), func(int) bool { return l.cursor() == 0 && !l.Following() }},
				{"G", logScrollKey("G"), func(int) bool { return l.cursor() == len(l.shown)-1 && l.Following() }},
				{"home", logScrollKey("home"), func(int) bool { return l.cursor() == 0 }},
				{"end", logScrollKey("end"), func(int) bool { return l.cursor() == len(l.shown)-1 }},
			}
			for _, s := range steps {
				l.MoveBy(mid - l.cursor())
				before := l.cursor()
				l.Update(s.msg)
				if !s.want(before) {
					t.Errorf("%s: cursor %d → %d of %d", s.name, before, l.cursor(), len(l.shown))
				}
			}
			l.Update(logKey("g"))
			first := ansi.Strip(logBody(l)[0])
			if !strings.Contains(first, "#1 ") {
				t.Fatalf("g: the first row is not the first request: %q", first)
			}
			cmd := l.Update(logKey("enter"))
			if cmd == nil {
				t.Fatal("enter on the first row opened nothing")
			}
			switch msg := cmd().(type) {
			case OpenExchangeMsg:
				if !paired || msg.Request.Seq != 1 || msg.Response == nil {
					t.Errorf("enter opened the exchange of frame %d (paired %t)", msg.Request.Seq, paired)
				}
			case OpenFrameMsg:
				if paired || msg.Frame.Seq != 1 {
					t.Errorf("enter opened frame %d (paired %t)", msg.Frame.Seq, paired)
				}
			default:
				t.Errorf("enter sent %T", msg)
			}
		})
	}
}

// In the exchanges view under a filter, a request's row appears when its
// answer makes it match: above the cursor, the cursor stays on the frame
// it was on and the screen does not jump; following, it stays on the last.
func TestLogExchangeCompletingAboveKeepsTheCursor(t *testing.T) {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(120, 12)
	l.Focus()
	l.TogglePaired()
	l.SetFilter("kind:error")
	req := func(seq int64) *mcp.Frame {
		id := fmt.Sprint(seq)
		return &mcp.Frame{Seq: seq, Time: logAt(int(seq)), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: mcp.ID(id),
			Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo"}}`)}
	}
	fail := func(seq int64, r *mcp.Frame) *mcp.Frame {
		return &mcp.Frame{Seq: seq, Time: logAt(int(seq)), Dir: mcp.Inbound, Kind: mcp.KindErrorResponse, ID: r.ID, ReplyTo: r.Seq, ReplyToMethod: "tools/call",
			ErrorCode: -32603, ErrorMessage: "boom", Raw: []byte(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"error":{"code":-32603,"message":"boom"}}`)}
	}
	// Ten requests stay pending (hidden by kind:error); then forty fail
	// at once, one after the other.
	seq := int64(0)
	var pending []*mcp.Frame
	for range 10 {
		seq++
		r := req(seq)
		pending = append(pending, r)
		l.Append(mcp.FrameEvent{Frame: r})
	}
	for range 40 {
		seq++
		r := req(seq)
		l.Append(mcp.FrameEvent{Frame: r})
		seq++
		l.Append(mcp.FrameEvent{Frame: fail(seq, r)})
	}
	if len(l.shown) != 40 {
		t.Fatalf("%d rows shown, want the 40 failed calls", len(l.shown))
	}
	l.MoveBy(-20)
	sel := l.Selected()
	top := logBody(l)[0]
	// A pending request above the cursor (and above the screen) fails.
	seq++
	l.Append(mcp.FrameEvent{Frame: fail(seq, pending[3])})
	if len(l.shown) != 41 {
		t.Fatalf("%d rows shown after the answer, want 41", len(l.shown))
	}
	if got := l.Selected(); got == nil || got.Seq != sel.Seq {
		t.Fatalf("the cursor moved from frame %d to %v", sel.Seq, got)
	}
	if got := logBody(l)[0]; got != top {
		t.Errorf("the screen jumped: first row %q, was %q", got, top)
	}
	// Following, the cursor stays on the newest row.
	l.SetFollow(true)
	last := l.Selected()
	seq++
	l.Append(mcp.FrameEvent{Frame: fail(seq, pending[5])})
	if got := l.Selected(); !l.Following() || got == nil || got.Seq != last.Seq || l.cursor() != len(l.shown)-1 {
		t.Errorf("following: the cursor left the last row (frame %v, cursor %d of %d)", got, l.cursor(), len(l.shown))
	}
}

// A click picks the row drawn where it lands, wrapped rows included.
func TestLogClickSelectsTheRowDrawn(t *testing.T) {
	l := newExchangeLog(true, 60, 20)
	l.Update(logKey("g"))
	l.Update(logScrollKey("W"))
	body := logBody(l)
	for y, row := range body {
		if strings.Contains(row, "resources/read") {
			// The row under the subject's first row: still the same entry
			// when it wraps, and the next entry after it.
			l.ClickRow(1 + y + 1)
			if f := l.Selected(); f == nil || f.Method != "resources/read" {
				t.Fatalf("a click on the second row of the wrapped resources/read selected %v:\n%s", f, strings.Join(body, "\n"))
			}
			return
		}
	}
	t.Fatalf("no resources/read row:\n%s", strings.Join(body, "\n"))
}

// Wrapped and following, the newest row is on the last line as rows
// arrive.
func TestLogWrappedFollowsTheTail(t *testing.T) {
	l := newExchangeLog(true, 60, 12)
	l.Update(logScrollKey("W"))
	for i := range 30 {
		l.Append(mcp.StderrEvent{Time: logAt(2000 + i), Line: fmt.Sprintf("line %d %s", i, strings.Repeat("x", 80))})
	}
	body := logBody(l)
	joined := strings.Join(body, "\n")
	// The newest row is folded: its start above, its last x on the last line.
	lastLine := strings.Trim(body[len(body)-1], "│ ")
	if !l.Following() || !strings.Contains(joined, "line 29") || lastLine == "" || strings.Trim(lastLine, "x") != "" {
		t.Fatalf("the newest row does not end on the last line:\n%s", joined)
	}
}

// Wrapped, a filter or a toggle that hides rows re-indexes the log while
// the list draws rows to settle: it must never ask for a row that is
// gone (x on a wrapped, paused log crashed the first build of this).
func TestLogWrappedSurvivesRowsGoing(t *testing.T) {
	for _, change := range []struct {
		name string
		do   func(l *Log)
	}{
		{"x", func(l *Log) { l.Update(logKey("x")) }},
		{"t", func(l *Log) { l.Update(logKey("t")) }},
		{"s", func(l *Log) { l.Update(logKey("s")) }},
		{"filter", func(l *Log) { l.SetFilter("kind:error") }},
	} {
		t.Run(change.name, func(t *testing.T) {
			l := newExchangeLog(true, 60, 12)
			l.Update(logScrollKey("W"))
			l.Update(logKey("k"))
			l.Update(logKey("k"))
			change.do(l)
			if v := ansi.Strip(l.View()); !strings.Contains(v, "wrap") {
				t.Fatalf("after %s:\n%s", change.name, v)
			}
		})
	}
}
