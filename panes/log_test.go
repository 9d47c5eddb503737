package panes

import (
	"errors"
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

func newFixtureLog(dark bool, w, h int) *Log {
	l := NewLog(themes.Default(dark), keymap.Default())
	l.SetSize(w, h)
	l.Focus()
	for _, ev := range logFixtureEvents() {
		l.Append(ev)
	}
	return l
}

var logSizes = []struct{ w, h int }{{80, 24}, {120, 35}}

func TestLogView(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range logSizes {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				l := newFixtureLog(dark, sz.w, sz.h)
				v := l.View()
				logAssertSize(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}

// logAssertSize checks the pane contract: exactly w×h cells.
func logAssertSize(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d", len(lines), h)
	}
	for i, line := range lines {
		if got := ansi.StringWidth(line); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(line))
		}
	}
}

func logKey(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func logType(l *Log, s string) {
	for _, r := range s {
		l.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func TestLogFilter(t *testing.T) {
	cases := []struct {
		expr string
		want int // frames shown
	}{
		{"", 11},
		{"method:tools/", 5}, // list req+result, call req+error, the timed-out call
		{"dir:out", 5},
		{"dir:in", 6},
		{"kind:error", 1},
		{"kind:notification", 2},
		{"kind:invalid", 1},
		{"id:3", 2},
		{"unknown tool", 1},
		{"method:tools/ dir:in", 2},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			l := newFixtureLog(true, 120, 35)
			l.SetFilter(c.expr)
			frames := 0
			for _, i := range l.shown {
				if l.entries[i].kind == entryFrame {
					frames++
				}
			}
			if frames != c.want {
				t.Errorf("filter %q shows %d frames, want %d", c.expr, frames, c.want)
			}
		})
	}
}

func TestLogFilterTyping(t *testing.T) {
	l := newFixtureLog(true, 120, 35)
	l.Update(logKey("/"))
	if !l.Capturing() {
		t.Fatal("/ did not open the filter")
	}
	logType(l, "kind:error")
	l.Update(logKey("enter"))
	if l.Capturing() {
		t.Fatal("enter did not close the filter input")
	}
	if len(l.shown) != 1 || l.frameOf(&l.entries[l.shown[0]]).Kind != mcp.KindErrorResponse {
		t.Fatalf("typed filter shows %d rows, want the one error", len(l.shown))
	}
	if want := fmt.Sprintf("%d rows hidden", len(l.entries)-1); !strings.Contains(l.Title(), want) {
		t.Errorf("title %q does not say how many are hidden (%s)", l.Title(), want)
	}
	l.Update(logKey("esc"))
	if len(l.shown) != len(l.entries) {
		t.Errorf("esc did not clear the filter: %d of %d shown", len(l.shown), len(l.entries))
	}
}

func TestLogFollow(t *testing.T) {
	l := newFixtureLog(true, 80, 10)
	if !l.Following() {
		t.Fatal("a new log should follow")
	}
	l.Update(logKey("up"))
	if l.Following() {
		t.Fatal("moving up should stop following")
	}
	before := l.cursor()
	l.Append(mcp.StderrEvent{Time: logAt(3000), Line: "more"})
	if l.cursor() != before {
		t.Fatal("a paused log moved its cursor on append")
	}
	l.Update(logKey("f"))
	if !l.Following() || l.cursor() != len(l.shown)-1 {
		t.Fatal("f should resume following at the bottom")
	}
	l.Update(logKey("up"))
	l.Update(logKey("down"))
	if !l.Following() {
		t.Fatal("reaching the bottom should resume following")
	}
}

func TestLogToggleStderr(t *testing.T) {
	l := newFixtureLog(true, 80, 24)
	n := len(l.shown)
	l.Update(logKey("s"))
	if len(l.shown) != n-2 {
		t.Fatalf("hiding stderr left %d rows, want %d", len(l.shown), n-2)
	}
	if strings.Contains(ansi.Strip(l.View()), "panic: boom\n") || strings.Contains(ansi.Strip(l.View()), "stderr demo server") {
		t.Fatal("stderr still drawn")
	}
	l.Update(logKey("s"))
	if len(l.shown) != n {
		t.Fatal("s did not bring stderr back")
	}
}

func TestLogOpen(t *testing.T) {
	l := newFixtureLog(true, 80, 24)
	l.SetFilter("kind:error")
	cmd := l.Update(logKey("enter"))
	if cmd == nil {
		t.Fatal("enter on a frame gave no command")
	}
	msg, ok := cmd().(OpenFrameMsg)
	if !ok || msg.Frame.Kind != mcp.KindErrorResponse {
		t.Fatalf("enter gave %#v", msg)
	}
	if p := l.Paired(msg.Frame); p == nil || p.Method != "tools/call" || p.ID != "3" {
		t.Fatalf("paired frame of the error is %+v", p)
	}
	if l.Paired(l.Paired(msg.Frame)) != msg.Frame {
		t.Fatal("pairing is not symmetric")
	}
}

func TestLogShowsTransportEvents(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(120, 10)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.Append(mcp.TransportEvent{Time: at, Kind: "http", Summary: "POST /mcp → 200 text/event-stream 3ms",
		Fields: []mcp.Field{{Key: "Mcp-Session-Id", Value: "abc123"}}})
	l.Append(mcp.TransportEvent{Time: at.Add(time.Second), Kind: "reconnect", Summary: "stream closed\x1b[2J", Err: errors.New("gave up")})
	v := ansi.Strip(l.View())
	if !strings.Contains(v, "http") || !strings.Contains(v, "POST /mcp → 200 text/event-stream 3ms") {
		t.Errorf("the HTTP exchange is not in the log:\n%s", v)
	}
	if !strings.Contains(v, `stream closed\x1b[2J: gave up`) {
		t.Errorf("the failed reconnect is not shown escaped with its error:\n%s", v)
	}
	// Fields are searchable with the filter.
	l.SetFilter("abc123")
	if v := ansi.Strip(l.View()); !strings.Contains(v, "POST /mcp") || strings.Contains(v, "reconnect") {
		t.Errorf("filtering by a header value:\n%s", v)
	}
}

func TestLogOpensTransportEvents(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(120, 10)
	l.Focus()
	l.Append(mcp.TransportEvent{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Kind: "http", Summary: "POST /mcp → 404",
		Fields: []mcp.Field{{Key: "Mcp-Session-Id", Value: "abc\x1b[2J"}}, Err: errors.New("session expired")})
	cmd := l.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter on an HTTP exchange opened nothing")
	}
	msg, ok := cmd().(OpenLinesMsg)
	if !ok {
		t.Fatalf("enter gave %T", cmd())
	}
	text := ansi.Strip(strings.Join(msg.Lines, "\n"))
	for _, want := range []string{"POST /mcp → 404", "error: session expired", `Mcp-Session-Id: abc\x1b[2J`} {
		if !strings.Contains(text, want) {
			t.Errorf("detail lacks %q:\n%s", want, text)
		}
	}
}

// The log keeps its frames in a store and rebuilds them; a frame it did
// not give out (an operation's own request frame, from the client) is
// still found, paired and selected, by its seq in the current connection
// and its bytes, never a frame of an earlier connection with the same seq.
func TestLogFindsFramesItDidNotGiveOut(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(100, 20)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := func(seq int64, id string) *mcp.Frame {
		return &mcp.Frame{Seq: seq, Time: at, Dir: mcp.Outbound, Transport: "stdio", Kind: mcp.KindRequest, Method: "tools/call", ID: mcp.ID(id),
			Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call"}`)}
	}
	resp := func(seq, replyTo int64, id string) *mcp.Frame {
		return &mcp.Frame{Seq: seq, Time: at, Dir: mcp.Inbound, Transport: "stdio", Kind: mcp.KindResponse, ID: mcp.ID(id), ReplyTo: replyTo, ReplyToMethod: "tools/call",
			Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)}
	}
	old := req(1, "1")
	l.Append(mcp.FrameEvent{Frame: old})
	l.Append(mcp.FrameEvent{Frame: resp(2, 1, "1")})
	l.AppendSeparator(at, "reconnected")
	cur, ans := req(1, "7"), resp(2, 1, "7")
	l.Append(mcp.FrameEvent{Frame: cur})
	l.Append(mcp.FrameEvent{Frame: ans})

	if p := l.Paired(cur); p == nil || p.ID != "7" || p.Kind != mcp.KindResponse {
		t.Fatalf("Paired(the client's own request) = %+v", p)
	}
	if p := l.Paired(ans); p == nil || string(p.Raw) != string(cur.Raw) {
		t.Fatalf("Paired(the client's own response) = %+v", p)
	}
	if l.Paired(old) != nil {
		t.Fatal("a frame of the earlier connection (same seq, other bytes) was taken for the current one")
	}
	if !l.SelectFrame(cur) {
		t.Fatal("SelectFrame did not find the client's own frame")
	}
	if s := l.Selected(); s == nil || string(s.Raw) != string(cur.Raw) || s.Seq != cur.Seq {
		t.Fatalf("selected %+v, want the current connection's request", s)
	}
	if s := l.Selected(); l.Selected() != s || l.Paired(l.Paired(s)) != s {
		t.Fatal("a rebuilt frame changed identity while held")
	}
	if l.SelectFrame(&mcp.Frame{Seq: 9, Raw: []byte("{}")}) {
		t.Fatal("SelectFrame found a frame that was never logged")
	}
	if f := l.FrameBySeq(2); f == nil || f.ID != "7" {
		t.Fatalf("FrameBySeq(2) = %+v, want the current connection's response", f)
	}
}

// The time column holds 9 cells however long the session runs.
func TestRelTimeFitsItsColumn(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Millisecond, "+1.234s"},
		{99999 * time.Millisecond, "+99.999s"},
		{127180 * time.Millisecond, "+2m07.1s"},
		{59*time.Minute + 59900*time.Millisecond, "+59m59.9s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "+1h02m03s"},
		{9*time.Hour + 59*time.Minute, "+9h59m00s"},
	} {
		got := relTime(c.d)
		if got != c.want || len(got) > 9 {
			t.Errorf("relTime(%v) = %q, want %q (≤ 9 cells)", c.d, got, c.want)
		}
	}
}

// session:N keeps one client session of a tap's capture (its frames and
// HTTP requests); -session:N leaves it out.
func TestLogFilterBySession(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(120, 35)
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for i, n := range []int{1, 2, 1, 2, 2} {
		l.Append(mcp.FrameEvent{Frame: &mcp.Frame{Seq: int64(i + 1), Time: at, Dir: mcp.Outbound, Transport: "http", Kind: mcp.KindRequest,
			Method: "tools/list", ID: "1", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), ClientSession: n}})
	}
	l.Append(mcp.TransportEvent{Time: at, Kind: "http", Summary: "POST /mcp", ClientSession: 2})
	l.Append(mcp.StderrEvent{Time: at, Line: "a line"})
	cases := []struct {
		expr              string
		frames, transport int
		stderr            bool
	}{
		{"session:1", 2, 0, false},
		{"session:2", 3, 1, false},
		{"session:2 kind:http", 0, 1, false},
		{"-session:2", 2, 0, true},
		{"session:3", 0, 0, false},
	}
	for _, c := range cases {
		l.SetFilter(c.expr)
		frames, transport, stderr := 0, 0, false
		for _, i := range l.shown {
			switch l.entries[i].kind {
			case entryFrame:
				frames++
			case entryTransport:
				transport++
			case entryStderr:
				stderr = true
			}
		}
		if frames != c.frames || transport != c.transport || stderr != c.stderr {
			t.Errorf("filter %q shows %d frames, %d HTTP rows, stderr %t; want %d, %d, %t", c.expr, frames, transport, stderr, c.frames, c.transport, c.stderr)
		}
	}
}
