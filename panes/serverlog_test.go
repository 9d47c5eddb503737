package panes

import (
	"encoding/json"
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

// logFrame is a notifications/message frame as the session hands it on.
func logFrame(seq int64, at time.Time, level, data string) (*mcp.Frame, json.RawMessage) {
	params := json.RawMessage(fmt.Sprintf(`{"level":%q,"data":%q}`, level, data))
	raw := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":` + string(params) + `}`)
	return &mcp.Frame{Seq: seq, Time: at, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: mcp.NotifyMessage, Raw: raw}, params
}

func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	}
	r := []rune(s)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r, Text: s, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}

func newServerLog(n int, data func(i int) string) *ServerLog {
	s := NewServerLog(themes.Dark(), keymap.Default())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		f, p := logFrame(int64(i+1), t0.Add(time.Duration(i)*time.Millisecond), LogLevels[i%len(LogLevels)], data(i))
		s.Append(f.Time, p, f)
	}
	s.SetSize(80, 12)
	s.Focus()
	return s
}

// The level is a column: "emergency" (the longest) is not run into the
// message.
func TestServerLogLevelIsAColumn(t *testing.T) {
	s := newServerLog(8, func(i int) string { return LogLevels[i%8] + "-level message" })
	v := ansi.Strip(s.View())
	for _, l := range LogLevels {
		if !strings.Contains(v, l+" ") || strings.Contains(v, l+l) {
			t.Fatalf("level %q runs into its message:\n%s", l, v)
		}
	}
}

// The server log is a list: g goes to the first entry, enter opens its
// frame, G and the wheel move, and new entries follow only at the end.
func TestServerLogScrollsAndOpens(t *testing.T) {
	s := newServerLog(1000, func(i int) string { return fmt.Sprintf("message %04d", i) })
	if v := ansi.Strip(s.View()); !strings.Contains(v, "message 0999") || strings.Contains(v, "message 0000") {
		t.Fatalf("the newest entries are not shown first:\n%s", v)
	}
	s.Update(keyPress("g"))
	if v := ansi.Strip(s.View()); !strings.Contains(v, "▸ ") || !strings.Contains(v, "message 0000") {
		t.Fatalf("g did not go to the first entry:\n%s", v)
	}
	msg := s.Update(keyPress("enter"))
	if msg == nil {
		t.Fatal("enter opened nothing")
	}
	open, ok := msg().(OpenFrameMsg)
	if !ok || open.Frame == nil || open.Frame.Seq != 1 {
		t.Fatalf("enter sent %#v, want the first entry's frame", msg())
	}
	s.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if v := ansi.Strip(s.View()); !strings.Contains(v, "▸ "+"03:04:05.003") {
		t.Fatalf("the wheel did not move the cursor by 3:\n%s", v)
	}
	f, p := logFrame(1001, time.Now(), "info", "late")
	s.Append(f.Time, p, f)
	if v := ansi.Strip(s.View()); strings.Contains(v, "late") {
		t.Fatalf("a new entry scrolled the list away from where the user is:\n%s", v)
	}
	s.Update(keyPress("G"))
	if v := ansi.Strip(s.View()); !strings.Contains(v, "late") {
		t.Fatalf("G did not go to the end:\n%s", v)
	}
	f, p = logFrame(1002, time.Now(), "info", "later")
	s.Append(f.Time, p, f)
	if v := ansi.Strip(s.View()); !strings.Contains(v, "later") {
		t.Fatalf("at the end, a new entry did not follow:\n%s", v)
	}
}

// A long entry can be wrapped (W) or scrolled sideways (→).
func TestServerLogLongLines(t *testing.T) {
	long := strings.Repeat("word ", 40) + "END"
	s := newServerLog(3, func(int) string { return long })
	if v := ansi.Strip(s.View()); strings.Contains(v, "END") {
		t.Fatalf("the long line was not cut:\n%s", v)
	}
	for range 4 {
		s.Update(keyPress("right"))
	}
	if v := ansi.Strip(s.View()); !strings.Contains(v, "END") {
		t.Fatalf("→ did not scroll sideways:\n%s", v)
	}
	s.Update(keyPress("W"))
	if v := ansi.Strip(s.View()); !strings.Contains(v, "END") || !strings.Contains(v, "03:04:05.002") || strings.Count(v, "▸") != 1 {
		t.Fatalf("W did not wrap:\n%s", v)
	}
	for _, want := range []string{"enter", "W", "←/→", "g"} {
		found := false
		for _, b := range s.FullHelp() {
			for _, k := range b {
				if k.Help().Key == want {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%q is not in the help", want)
		}
	}
}

// Goldens of the server log as a list: focused, the cursor moved up from
// the end, a long entry cut, then the same wrapped, at 60×15, 80×24 and
// 120×35, dark and light.
func TestServerLogGoldens(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
			for _, wrap := range []bool{false, true} {
				t.Run(fmt.Sprintf("dark=%t/%dx%d/wrap=%t", dark, sz.w, sz.h, wrap), func(t *testing.T) {
					s := NewServerLog(themes.Default(dark), keymap.Default())
					t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
					for i := range 40 {
						data := fmt.Sprintf("message %d", i)
						if i%7 == 3 {
							data = "a long entry: " + strings.Repeat("lorem ipsum dolor sit amet ", 8) + "END"
						}
						f, p := logFrame(int64(i+1), t0.Add(time.Duration(i)*time.Second), LogLevels[i%len(LogLevels)], data)
						s.Append(f.Time, p, f)
					}
					s.SetLevel("debug")
					s.SetSize(sz.w, sz.h)
					s.Focus()
					for range 3 {
						s.Update(keyPress("k"))
					}
					if wrap {
						s.Update(keyPress("W"))
					}
					golden.RequireEqual(t, s.View())
				})
			}
		}
	}
}

// Lines whose frame is in the log's store are read from it: the pane
// draws exactly what it draws from lines it holds itself, opens the log's
// own frame, and keeps no copy (its loose lines stay empty).
func TestServerLogReadsTheLogsStore(t *testing.T) {
	data := func(i int) string { return fmt.Sprintf("message %04d \x1b[31m", i) }
	own := newServerLog(40, data)
	l := NewLog(themes.Dark(), keymap.Default())
	s := NewServerLog(themes.Dark(), keymap.Default())
	s.SetStore(l.Store())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 40 {
		f, p := logFrame(int64(i+1), t0.Add(time.Duration(i)*time.Millisecond), LogLevels[i%len(LogLevels)], data(i))
		l.Append(mcp.FrameEvent{Frame: f})
		s.AppendLogged(f.Time, p, l.Logged(f))
	}
	s.SetSize(80, 12)
	s.Focus()
	if len(s.loose) != 0 {
		t.Fatalf("%d of 40 lines kept their own copy", len(s.loose))
	}
	for _, k := range []string{"", "g", "j", "W", "G"} {
		if k != "" {
			own.Update(keyPress(k))
			s.Update(keyPress(k))
		}
		if got, want := s.View(), own.View(); got != want {
			t.Fatalf("after %q the store-backed pane draws\n%s\nwant\n%s", k, got, want)
		}
	}
	s.Update(keyPress("g"))
	if sel := s.Selected(); sel == nil || sel != l.FrameBySeq(1) {
		t.Fatalf("the first line opens %+v, not the log's frame", sel)
	}
	// A frame the store does not know is kept as given.
	f, p := logFrame(99, t0, "info", "loose")
	s.Append(f.Time, p, f)
	if len(s.loose) != 1 {
		t.Fatalf("a frame from elsewhere was not kept (%d loose lines)", len(s.loose))
	}
}

// j, k, G, PgUp and the wheel each move the Logs pane's cursor on their
// own (each was once seen doing nothing there) (TestServerLogScrollsAndOpens and
// the root model's flow reach the first entry with g, which would pass
// even if the others were dead).
func TestServerLogEveryScrollKeyMoves(t *testing.T) {
	s := newServerLog(100, func(i int) string { return fmt.Sprintf("message %03d", i) })
	cursor := func() int {
		t.Helper()
		for _, l := range strings.Split(ansi.Strip(s.View()), "\n") {
			if _, after, ok := strings.Cut(l, "▸ 03:04:05."); ok && len(after) >= 3 {
				var ms int
				if _, err := fmt.Sscanf(after[:3], "%d", &ms); err == nil {
					return ms
				}
			}
		}
		t.Fatalf("no cursor on screen:\n%s", ansi.Strip(s.View()))
		return -1
	}
	if got := cursor(); got != 99 {
		t.Fatalf("the cursor starts on entry %d, want the newest (99)", got)
	}
	steps := []struct {
		name string
		msg  tea.Msg
		want func(before, after int) bool
	}{
		{"k", keyPress("k"), func(b, a int) bool { return a == b-1 }},
		{"up", tea.KeyPressMsg{Code: tea.KeyUp}, func(b, a int) bool { return a == b-1 }},
		{"j", keyPress("j"), func(b, a int) bool { return a == b+1 }},
		{"pgup", keyPress("pgup"), func(b, a int) bool { return a <= b-5 }},
		{"pgdown", tea.KeyPressMsg{Code: tea.KeyPgDown}, func(b, a int) bool { return a >= b+5 }},
		{"wheel up", tea.MouseWheelMsg{Button: tea.MouseWheelUp}, func(b, a int) bool { return a < b }},
		{"wheel down", tea.MouseWheelMsg{Button: tea.MouseWheelDown}, func(b, a int) bool { return a > b }},
		{"g", keyPress("g"), func(_, a int) bool { return a == 0 }},
		{"G", keyPress("G"), func(_, a int) bool { return a == 99 }},
	}
	for _, st := range steps {
		before := cursor()
		s.Update(st.msg)
		if after := cursor(); !st.want(before, after) {
			t.Errorf("%s moved the cursor from entry %d to %d", st.name, before, after)
		}
	}
}

// A pane's position stays readable in its title when the pane is narrow:
// the title's name is cut to make room, not the position (at 44 columns
// "Server log (1000) · level not set · 1000/1000" lost its numbers).
func TestTitleKeepsThePositionReadable(t *testing.T) {
	s := newServerLog(1000, func(i int) string { return fmt.Sprintf("message %04d", i) })
	s.SetSize(44, 10)
	s.Update(keyPress("W"))
	top := strings.SplitN(ansi.Strip(s.View()), "\n", 2)[0]
	if !strings.Contains(top, "1000/1000 · wrap") || !strings.Contains(top, "Server log") {
		t.Fatalf("the position was cut from the title: %q", top)
	}

	c := NewContent(themes.Dark(), keymap.Default())
	lines := make([]string, 300)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	c.Set("Resource file:///srv/data/reports/2026/quarterly/summary-of-everything.txt", lines)
	c.SetSize(60, 15)
	c.Update(keyPress("G"))
	top = strings.SplitN(ansi.Strip(c.View()), "\n", 2)[0]
	if !strings.Contains(top, "(288-300 of 300)") || !strings.Contains(top, "Resource file:///") {
		t.Fatalf("the position was cut from the content title: %q", top)
	}
	if w := ansi.StringWidth(top); w != 60 {
		t.Fatalf("title row is %d cells, want 60: %q", w, top)
	}
}
