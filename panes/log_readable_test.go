package panes

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/themes"
)

func newExchangeLog(dark bool, w, h int) *Log {
	l := NewLog(themes.Default(dark), keymap.Default())
	l.SetSize(w, h)
	l.Focus()
	for _, ev := range logExchangeEvents() {
		l.Append(ev)
	}
	return l
}

// rowText is the text of every shown row, drawn at the log's width.
func logRowText(l *Log) []string {
	var out []string
	for _, idx := range l.shown {
		out = append(out, ansi.Strip(l.renderRow(&l.entries[idx], max(l.w-2, 0), false, false)))
	}
	return out
}

func rowWith(t *testing.T, rows []string, parts ...string) string {
	t.Helper()
	for _, r := range rows {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(r, p)
		}
		if ok {
			return r
		}
	}
	t.Fatalf("no row has all of %q:\n%s", parts, strings.Join(rows, "\n"))
	return ""
}

// Rows name their subject: the tool, resource, prompt or reference, and
// an answer its request's; a server's name is shown escaped.
func TestLogRowsNameTheirSubject(t *testing.T) {
	l := newExchangeLog(true, 160, 40)
	rows := logRowText(l)
	rowWith(t, rows, "→ req", "tools/call echo #2")
	rowWith(t, rows, "← resp", "result of tools/call echo #2")
	rowWith(t, rows, "resources/read file:///home/someone/projects/a-rather-long-directory-name/and/a/file.txt #3")
	rowWith(t, rows, "ERR -32002", "result of resources/read file:///home/someone/")
	rowWith(t, rows, "prompts/get greet #4")
	rowWith(t, rows, "completion/complete prompt greet · style #5")
	rowWith(t, rows, "notifications/message info greeter")
	rowWith(t, rows, `tools/call fail\x1b[2J #6`)
	rowWith(t, rows, "TIMEOUT", "tools/call sleep #7", "(local)")
}

// A long subject is cut to fit: the id and the size after it stay on
// screen from 60 columns, the latency too at 80. Narrower, the size and
// latency give way before the subject is cut further; the method is never
// cut, and no piece is ever cut to a lone "…" ("notifications/pr… …").
func TestLogSubjectGivesWay(t *testing.T) {
	for _, w := range []int{43, 50, 60, 80} {
		l := newExchangeLog(true, w, 40)
		rows := logRowText(l)
		for _, r := range rows {
			if strings.Contains(r, "… …") || strings.Contains(r, " … ") {
				t.Errorf("width %d: a piece cut to a lone …: %q", w, r)
			}
		}
		if w < 60 {
			rowWith(t, rows, "tools/call longRun", "#8")
			rowWith(t, rows, "resources/read fil", "#3")
			if w >= 50 { // narrower, the badge leaves the method no room
				rowWith(t, rows, "ERR -32002", "resources/read", "#3")
			}
			continue
		}
		req := rowWith(t, rows, "file:///home/", "#3")
		if !strings.Contains(req, "…") || !regexp.MustCompile(`#3 \d+B$`).MatchString(strings.TrimRight(req, " ")) {
			t.Errorf("width %d: the request row does not end with its id and size, subject cut: %q", w, req)
		}
		resp := rowWith(t, rows, "ERR -32002", "resources/read file:///h", "#3")
		if w >= 80 && !regexp.MustCompile(`#3 \d+B 30ms`).MatchString(resp) {
			t.Errorf("width %d: the answer's size and latency were pushed off: %q", w, resp)
		}
		for _, r := range rows {
			if ansi.StringWidth(r) > w-2 {
				t.Errorf("width %d: row wider than the pane: %q", w, r)
			}
		}
	}
}

// The exchanges view: one row per request with its status, latency and
// size; answers and the local error fold into their request's row;
// notifications, transport and stderr rows stay.
func TestLogExchangesView(t *testing.T) {
	l := newExchangeLog(true, 160, 40)
	frames := len(l.shown)
	l.Update(logKey("x"))
	if !l.PairedView() || !strings.Contains(l.Title(), "exchanges") {
		t.Fatalf("x did not switch to exchanges: %q", l.Title())
	}
	rows := logRowText(l)
	rowWith(t, rows, "→ ✓", "initialize #1", "155B→147B", "12ms")
	rowWith(t, rows, "→ ✓", "tools/call echo #2", "21ms")
	rowWith(t, rows, "→ ✗ error", "resources/read file:///", "#3", "30ms", "-32002 Resource not found")
	rowWith(t, rows, "→ ✓", "prompts/get greet #4")
	rowWith(t, rows, "→ ✓", "completion/complete prompt greet · style #5")
	rowWith(t, rows, "→ ✗ error", `tools/call fail\x1b[2J #6`, "isError")
	rowWith(t, rows, "→ ✗ local", "tools/call sleep #7", "1.00s", "timeout (local)")
	rowWith(t, rows, "→ … pending", "tools/call longRunningOperation #8")
	rowWith(t, rows, "← notif", "notifications/message info greeter")
	rowWith(t, rows, "→ notif", "notifications/initialized")
	rowWith(t, rows, "⇄ sse", "SSE priming event")
	rowWith(t, rows, "stderr still working")
	for _, r := range rows {
		if strings.Contains(r, "← resp") || strings.Contains(r, "TIMEOUT") {
			t.Errorf("an answer or a local error kept a row of its own: %q", r)
		}
	}
	// 6 answers and one local error folded; nothing is hidden.
	if got, want := len(l.shown), frames-7; got != want || l.Hidden() != 0 || l.Rows() != want {
		t.Errorf("exchanges: %d rows shown of %d (%d hidden), want %d and none hidden", got, l.Rows(), l.Hidden(), want)
	}
	// A server's error and a local one look different.
	v := l.View()
	if strings.Count(v, l.theme.Log.BadgeLocalError.Render(" ✗ local")) != 1 || !strings.Contains(v, l.theme.Log.BadgeError.Render(" ✗ error  ")) {
		t.Error("the server's error and the local error are not drawn in their own styles")
	}
	// kind:error finds the failed calls the view marks ✗ error: the
	// server's error response and the tool's isError result (which it
	// missed), not the local timeout or the successful calls.
	l.SetFilter("kind:error")
	rows = logRowText(l)
	if len(rows) != 2 {
		t.Errorf("kind:error shows %d exchanges, want 2:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	rowWith(t, rows, "→ ✗ error", "resources/read file:///")
	rowWith(t, rows, "→ ✗ error", `tools/call fail\x1b[2J #6`, "isError")
	l.SetFilter("")
	l.Update(logKey("x"))
	if l.PairedView() || len(l.shown) != frames {
		t.Fatalf("x again: %d rows, want the %d of the frames view", len(l.shown), frames)
	}
	// In the frames view it finds the two answers.
	l.SetFilter("kind:error")
	if rows := logRowText(l); len(rows) != 2 {
		t.Errorf("kind:error in the frames view shows %d rows, want 2:\n%s", len(rows), strings.Join(rows, "\n"))
	}
}

// In the exchanges view an answer arriving later turns the row from
// pending to done in place, and a filter matching the answer shows it.
func TestLogExchangeCompletesInPlace(t *testing.T) {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(120, 10)
	l.TogglePaired()
	l.SetFilter("kind:error")
	req := &mcp.Frame{Seq: 1, Time: logAt(0), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "1",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)}
	l.Append(mcp.FrameEvent{Frame: req})
	if len(l.shown) != 0 {
		t.Fatal("a pending request matched kind:error")
	}
	l.SetFilter("")
	if r := logRowText(l); len(r) != 1 || !strings.Contains(r[0], "pending") {
		t.Fatalf("pending row: %q", r)
	}
	_ = l.View() // the pending row is now cached
	l.SetFilter("kind:error")
	l.Append(mcp.FrameEvent{Frame: &mcp.Frame{Seq: 2, Time: logAt(5), Dir: mcp.Inbound, Kind: mcp.KindErrorResponse, ID: "1",
		ReplyTo: 1, ReplyToMethod: "tools/call", Latency: 5e6, ErrorCode: -32603, ErrorMessage: "boom",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`)}})
	if r := logRowText(l); len(r) != 1 || !strings.Contains(r[0], "✗ error") || !strings.Contains(r[0], "boom") {
		t.Fatalf("after the error answer under kind:error: %q", r)
	}
	if v := ansi.Strip(l.View()); strings.Contains(v, "pending") || !strings.Contains(v, "-32603 boom") {
		t.Errorf("the row was not redrawn:\n%s", v)
	}
}

// Enter on an exchange opens both frames: the request's JSON, then the
// answer's; a local error says it was mcpscope's doing.
func TestLogOpensExchange(t *testing.T) {
	l := newExchangeLog(true, 120, 40)
	l.TogglePaired()
	l.SetFilter("id:3")
	cmd := l.Update(logKey("enter"))
	if cmd == nil {
		t.Fatal("enter on an exchange opened nothing")
	}
	msg, ok := cmd().(OpenExchangeMsg)
	if !ok || msg.Request.Method != "resources/read" || msg.Response == nil || msg.Response.Kind != mcp.KindErrorResponse {
		t.Fatalf("enter gave %#v", cmd())
	}
	title, lines := ExchangeLines(l.theme, msg)
	text := ansi.Strip(strings.Join(allLines(lines), "\n"))
	if !strings.Contains(title, "resources/read file:///home/") || !strings.Contains(title, "#3 · ✗ error -32002 · 30ms") {
		t.Errorf("title %q", title)
	}
	for _, want := range []string{"→ request", `"method": "resources/read"`, "← error", "server error -32002: Resource not found", `"code": -32002`} {
		if !strings.Contains(text, want) {
			t.Errorf("exchange lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, `"method": "resources/read"`) > strings.Index(text, `"code": -32002`) {
		t.Error("the answer is shown before the request")
	}
	l.SetFilter("id:7")
	msg = l.Update(logKey("enter"))().(OpenExchangeMsg)
	_, lines = ExchangeLines(l.theme, msg)
	if text := ansi.Strip(strings.Join(allLines(lines), "\n")); !strings.Contains(text, "TIMEOUT") || !strings.Contains(text, "local; the server sent no error") {
		t.Errorf("a timed-out exchange:\n%s", text)
	}
	// A notification's row opens its frame, as in the frames view.
	l.SetFilter("kind:notification dir:in")
	if _, ok := l.Update(logKey("enter"))().(OpenFrameMsg); !ok {
		t.Error("enter on a notification in the exchanges view did not open its frame")
	}
}

// t hides the transport rows, and -kind:http the HTTP ones only; the
// title and the bottom line say how many rows are hidden and by what.
func TestLogHidesTransportRows(t *testing.T) {
	l := newExchangeLog(true, 120, 40)
	total := len(l.shown)
	transport, httpRows := 0, 0
	for _, e := range l.entries {
		if e.kind == entryTransport {
			transport++
			if l.data(&e).tr.Kind == "http" {
				httpRows++
			}
		}
	}
	l.Update(logKey("t"))
	if got := len(l.shown); got != total-transport {
		t.Fatalf("t left %d rows, want %d", got, total-transport)
	}
	want := plural.Of(transport, "row hidden", "rows hidden")
	if !strings.Contains(l.Title(), want) {
		t.Errorf("title %q lacks %q", l.Title(), want)
	}
	v := ansi.Strip(l.View())
	if strings.Contains(v, "⇄") || !strings.Contains(v, want+": transport (t)") {
		t.Errorf("transport rows drawn, or the bottom line does not say why rows are hidden:\n%s", v)
	}
	l.Update(logKey("t"))
	l.SetFilter("-kind:http")
	if got := len(l.shown); got != total-httpRows {
		t.Fatalf("-kind:http left %d rows, want %d", got, total-httpRows)
	}
	rows := logRowText(l)
	rowWith(t, rows, "⇄ sse")
	for _, r := range rows {
		if strings.Contains(r, "⇄ http") {
			t.Errorf("-kind:http kept %q", r)
		}
	}
	if v := ansi.Strip(l.View()); !strings.Contains(v, "/ -kind:http  "+plural.Of(httpRows, "row hidden", "rows hidden")+": filter") {
		t.Errorf("the filter line does not say what it hides:\n%s", v)
	}
	// Negation in general: -field:value leaves out what field:value finds.
	for _, c := range []struct {
		neg, pos string
	}{{"-method:tools/call", "method:tools/call"}, {"-dir:in", "dir:in"}, {"-id:3", "id:3"}, {"-kind:stderr", "kind:stderr"}, {"-kind:transport", "kind:transport"}} {
		l.SetFilter(c.pos)
		pos := len(l.shown)
		l.SetFilter(c.neg)
		if pos == 0 || len(l.shown)+pos != total {
			t.Errorf("%s shows %d rows and %s %d, of %d", c.pos, pos, c.neg, len(l.shown), total)
		}
	}
	// Text that merely starts with a minus is text: an error code.
	l.SetFilter("-32002")
	if len(l.shown) != 1 { // the error answer (its request does not hold the code)
		t.Errorf("-32002 as text shows %d rows:\n%s", len(l.shown), strings.Join(logRowText(l), "\n"))
	}
}

// The counts say what they count: frames are the frames logged, hidden
// are the rows of this view that the toggles and the filter leave out; so
// shown can never exceed the total, whatever is toggled (after s, the
// title once read "23 frames · 28 shown").
func TestLogCountsAreRight(t *testing.T) {
	l := newExchangeLog(true, 120, 40)
	stderr := 0
	for _, e := range l.entries {
		if e.kind == entryStderr {
			stderr++
		}
	}
	l.Update(logKey("s"))
	if want := fmt.Sprintf("Log · %d frames · %s · following", l.Frames(), plural.Of(stderr, "row hidden", "rows hidden")); l.Title() != want {
		t.Errorf("after s the title is %q, want %q", l.Title(), want)
	}
	// Paused, the position counts rows and says so: "8 frames · paused ·
	// 4/11" once counted frames in one place and rows in the other.
	l.Update(logKey("k"))
	if want := fmt.Sprintf("Log · %d frames · %s · paused · row %d/%d", l.Frames(), plural.Of(stderr, "row hidden", "rows hidden"), l.list.Cursor()+1, l.Shown()); l.Title() != want {
		t.Errorf("paused, the title is %q, want %q", l.Title(), want)
	}
	for _, paired := range []bool{false, true} {
		for _, tr := range []bool{false, true} {
			for _, filter := range []string{"", "tools", "kind:error", "-kind:sse"} {
				l.paired, l.hideTransport = paired, tr
				l.SetFilter(filter)
				if l.Shown() > l.Rows() || l.Hidden() < 0 || l.Rows() > len(l.entries) {
					t.Errorf("paired %v, transport hidden %v, filter %q: %d shown of %d rows (%d entries)", paired, tr, filter, l.Shown(), l.Rows(), len(l.entries))
				}
				// Hidden counts exactly the rows of this view not shown.
				rows := 0
				for i := range l.entries {
					if l.isRow(&l.entries[i]) {
						rows++
					}
				}
				if rows != l.Rows() {
					t.Errorf("paired %v: Rows() is %d, the view has %d", paired, l.Rows(), rows)
				}
			}
		}
	}
}

// Every log key is in the help: the short bar and the full help.
func TestLogKeysInHelp(t *testing.T) {
	l := newExchangeLog(true, 120, 40)
	k := l.keys.Log
	has := func(bs []key.Binding, b key.Binding) bool {
		for _, x := range bs {
			if x.Help() == b.Help() {
				return true
			}
		}
		return false
	}
	var full []key.Binding
	for _, col := range l.FullHelp() {
		full = append(full, col...)
	}
	for _, b := range []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Follow, k.Filter, k.Open, k.ToggleStderr, k.ToggleTransport, k.Pairs, k.ClearFilter} {
		if !has(full, b) {
			t.Errorf("%q is not in the log's full help", b.Help().Key)
		}
	}
	for _, b := range []key.Binding{k.Pairs, k.ToggleTransport} {
		if !has(l.ShortHelp(), b) {
			t.Errorf("%q is not in the log's help bar", b.Help().Key)
		}
	}
}

// Goldens of the readable log: frames with subjects, exchanges, and
// exchanges with the transport rows hidden.
func TestLogReadableView(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range logSizes {
			for _, mode := range []string{"frames", "exchanges", "exchanges-no-transport"} {
				t.Run(fmt.Sprintf("%s/dark=%t/%dx%d", mode, dark, sz.w, sz.h), func(t *testing.T) {
					l := newExchangeLog(dark, sz.w, sz.h)
					if mode != "frames" {
						l.TogglePaired()
					}
					if mode == "exchanges-no-transport" {
						l.ToggleTransport()
					}
					v := l.View()
					logAssertSize(t, v, sz.w, sz.h)
					golden.RequireEqual(t, v)
				})
			}
		}
	}
}

// A run of SSE keep-alives is one row, updated in place as its count
// grows, between the frames around it.
func TestLogKeepAliveRunIsOneRow(t *testing.T) {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(120, 10)
	req := &mcp.Frame{Seq: 1, Time: logAt(0), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "2",
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)}
	l.Append(mcp.FrameEvent{Frame: req})
	run := mcp.KeepAliveRun{ID: 9, Stream: "POST /mcp tools/call (id 2)", Started: logAt(1)}
	for _, n := range []int{1, 40_000, 2_000_000} {
		run.Count, run.Bytes, run.Last = n, int64(5*n), logAt(1+n/1000)
		r := run
		l.Append(r.Event(r.Last))
		_ = l.View() // the row is drawn (and cached) at each count
	}
	done := run
	done.Done = true
	l.Append(done.Event(done.Last))
	l.Append(mcp.FrameEvent{Frame: &mcp.Frame{Seq: 2, Time: logAt(2001), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "2",
		ReplyTo: 1, ReplyToMethod: "tools/call", Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)}})
	rows := logRowText(l)
	if len(rows) != 3 || l.Len() != 3 {
		t.Fatalf("%d rows (%d entries) for a request, a run and its answer:\n%s", len(rows), l.Len(), strings.Join(rows, "\n"))
	}
	if !strings.Contains(rows[1], "2,000,000 keep-alives") || !strings.Contains(rows[1], "9.5 MiB") || strings.Contains(rows[1], "continuing") {
		t.Errorf("the run's row: %q", rows[1])
	}
	if v := ansi.Strip(l.View()); !strings.Contains(v, "2,000,000 keep-alives") || strings.Contains(v, "40,000") {
		t.Errorf("the row was not redrawn:\n%s", v)
	}
	// A run read back from a file, already done, is a row of its own.
	l.Append(done.Event(done.Last))
	if l.Len() != 4 {
		t.Errorf("a finished run's report made %d entries, want 4", l.Len())
	}
}

// At 43 columns (the log beside the focused Tools pane) a row keeps its
// method whole, and a tool call's row its tool before its size: they read
// "notifications/pr… … 117B" and "call trigger-…" (which "call"?).
func TestNarrowLogKeepsTheSubject(t *testing.T) {
	l := NewLog(themes.Dark(), keymap.Default())
	l.SetSize(43, 10)
	call := &mcp.Frame{Seq: 1, Time: logT0, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "7",
		Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{},"_meta":{"progressToken":"mcpscope-op-7"}}}`)}
	progress := &mcp.Frame{Seq: 2, Time: logT0, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/progress",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpscope-op-7","progress":2,"total":5}}`)}
	l.Append(mcp.FrameEvent{Frame: call})
	l.Append(mcp.FrameEvent{Frame: progress})
	rows := logRowText(l)
	rowWith(t, rows, "← notif", "notifications/progress")
	rowWith(t, rows, "tools/call trigger", "#7")
	for _, r := range rows {
		if strings.Contains(r, "… …") {
			t.Errorf("a piece cut to a lone …: %q", r)
		}
	}
}

// A request ended by a failed sign-in says so in its row and its
// exchange: it used to read "CONNECTION LOST … no answer from the server",
// though the server was reachable and answered 401.
func TestLogNamesAFailedSignIn(t *testing.T) {
	req := &mcp.Frame{Seq: 1, Time: logAt(0), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "initialize", ID: mcp.ID("1"),
		Transport: "http", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)}
	le := &mcp.LocalError{Kind: mcp.SignInFailed, Method: "initialize", ID: "1", ReqSeq: 1, Elapsed: 40 * time.Millisecond,
		Err: &mcp.AuthorizationError{Err: errors.New("the authorization server did not grant a scope the server requires: read")}}
	for _, paired := range []bool{false, true} {
		l := NewLog(themes.Default(true), keymap.Default())
		l.SetSize(160, 10)
		if paired {
			l.TogglePaired()
		}
		l.Append(mcp.FrameEvent{Frame: req})
		l.Append(mcp.LocalErrorEvent{Time: logAt(40), Err: le})
		rows := strings.Join(logRowText(l), "\n")
		if strings.Contains(rows, "CONNECTION LOST") || strings.Contains(rows, "no answer from the server") || strings.Contains(rows, "connection lost") {
			t.Errorf("paired %v: the rows say the connection was lost:\n%s", paired, rows)
		}
		want := "the sign-in failed after 40ms (local): the authorization server did not grant"
		if paired {
			want = "sign-in failed (local)"
		}
		if !strings.Contains(rows, want) {
			t.Errorf("paired %v: no row says %q:\n%s", paired, want, rows)
		}
	}
	_, lines := ExchangeLines(themes.Default(true), OpenExchangeMsg{Request: req, Local: le})
	if text := ansi.Strip(strings.Join(allLines(lines), "\n")); !strings.Contains(text, "SIGN-IN FAILED  the sign-in failed after 40ms") || strings.Contains(text, "gave up") {
		t.Errorf("the exchange:\n%s", text)
	}
}
