package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
	"github.com/mcpscope/mcpscope/panes"
)

// runCmd runs a command chain the way the program would, batches
// included, feeding every message back to the model.
func runCmd(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch out := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range out {
			runCmd(m, c)
		}
	default:
		_, next := m.Update(out)
		runCmd(m, next)
	}
}

// queueAsk puts a server request in front of the user as the handler
// would, without the pump (whose command blocks on the channel).
func queueAsk(m *Model, method, params string) *pendingAsk {
	a := &pendingAsk{id: int(m.askSeq.Add(1)), ctx: context.Background(),
		req: &mcp.ServerRequest{Method: method, Params: json.RawMessage(params)}, reply: make(chan askReply, 1)}
	m.queue = append(m.queue, a)
	if m.modal != modalAsk {
		runCmd(m, m.showNextAsk())
	} else {
		m.ask.SetPending(len(m.queue) - 1)
	}
	m.Update(nil) // fit the help bar to the modal's keys, as after any message
	return a
}

const (
	elicitParams = `{"message":"Who is travelling?","requestedSchema":{"type":"object","properties":{` +
		`"name":{"type":"string","title":"Name","minLength":1},"age":{"type":"integer","minimum":0},` +
		`"colour":{"type":"string","enum":["red","green","blue"]}},"required":["name"]}}`
	urlParams      = `{"mode":"url","message":"Sign in to continue","url":"https://example.com/auth?state=abc","elicitationId":"e-1"}`
	samplingParams = `{"messages":[{"role":"user","content":{"type":"text","text":"Say hello"}}],"systemPrompt":"Be brief.","maxTokens":100}`
)

// withBookTrip lists the demo's book_trip tool next to the fixture's.
func withBookTrip(t testing.TB, m *Model) {
	schema := schematest.Tools(t, "demo-tools.json")["book_trip"]
	item := json.RawMessage(`{"name":"book_trip","description":"Books a trip.","inputSchema":` + string(schema) + `}`)
	feed(m, []mcp.Event{mcp.ListEvent{Time: at(30), Method: "tools/list", Pages: 1, Items: []json.RawMessage{item}}})
}

// modalCases open every overlay mcpscope has.
var modalCases = []struct {
	name string
	open func(t testing.TB, m *Model)
}{
	{"detail", func(t testing.TB, m *Model) { press(m, "up", "enter") }},
	{"handshake", func(t testing.TB, m *Model) { press(m, "H") }},
	{"help", func(t testing.TB, m *Model) { press(m, "?") }},
	{"result", func(t testing.TB, m *Model) {
		_, cmd := m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "echo", Args: json.RawMessage(`{"text":"hi"}`),
			Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`), Latency: 3 * time.Millisecond, Seq: 7}})
		runCmd(m, cmd)
	}},
	{"result-args", func(t testing.TB, m *Model) { openLongResult(m) }},
	{"result-raw", func(t testing.TB, m *Model) {
		openLongResult(m)
		press(m, "v")
	}},
	{"content", func(t testing.TB, m *Model) {
		_, cmd := m.Update(panes.OpenLinesMsg{Title: "resources/read demo://readme", Lines: []string{"# Readme", "", "Hello."}})
		runCmd(m, cmd)
	}},
	{"tools-form", func(t testing.TB, m *Model) {
		withBookTrip(t, m)
		press(m, "3", "enter")
	}},
	{"elicitation", func(t testing.TB, m *Model) { queueAsk(m, "elicitation/create", elicitParams) }},
	{"url-elicitation", func(t testing.TB, m *Model) { queueAsk(m, "elicitation/create", urlParams) }},
	{"sampling", func(t testing.TB, m *Model) { queueAsk(m, "sampling/createMessage", samplingParams) }},
}

// Every overlay at the three sizes mcpscope promises, dark and light.
func TestModalGoldens(t *testing.T) {
	for _, c := range modalCases {
		for _, theme := range []string{"dark", "light"} {
			for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
				t.Run(fmt.Sprintf("%s/%s/%dx%d", c.name, theme, sz.w, sz.h), func(t *testing.T) {
					m := newTestModel(theme, sz.w, sz.h)
					feed(m, sessionEvents())
					c.open(t, m)
					if m.topLayer() == "" {
						t.Fatalf("%s did not open", c.name)
					}
					v := content(m)
					requireScreen(t, v, sz.w, sz.h)
					golden.RequireEqual(t, v)
				})
			}
		}
	}
}

// No overlay is ever drawn over the header, the tab row, the status line
// or the help bar (however many rows it has), and nothing of the panes
// behind shows around it, at any size from 60×15 to 250×70.
func TestModalsNeverCoverChrome(t *testing.T) {
	sizes := []struct{ w, h int }{{60, 15}, {80, 24}, {100, 30}, {119, 40}, {120, 35}, {160, 45}, {200, 60}, {250, 70}}
	for _, c := range modalCases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := newTestModel("dark", sz.w, sz.h)
				feed(m, sessionEvents())
				c.open(t, m)
				checkChrome(t, m)
			})
		}
	}
}

func checkChrome(t *testing.T, m *Model) {
	t.Helper()
	screen := strings.Split(ansi.Strip(content(m)), "\n")
	l := m.layout
	want := map[int]string{l.header.Min.Y: m.renderHeader(), l.status.Min.Y: m.renderStatus()}
	if l.tabbed {
		want[l.tabs.Min.Y] = m.renderTabs()
	}
	for i, row := range m.renderHelp(l.help.Dy()) {
		want[l.help.Min.Y+i] = row
	}
	for y, w := range want {
		if got, w := screen[y], ansi.Strip(w); got != w {
			t.Errorf("row %d is covered:\n got %q\nwant %q", y, got, w)
		}
	}
	if l.modal.Min.Y < l.body.Min.Y || l.modal.Max.Y > l.body.Max.Y || l.body.Max.Y > l.status.Min.Y {
		t.Errorf("modal rows %d-%d outside the body %d-%d", l.modal.Min.Y, l.modal.Max.Y-1, l.body.Min.Y, l.body.Max.Y-1)
	}
	top := strings.Split(ansi.Strip(m.topLayer()), "\n")
	first := -1
	for y := l.body.Min.Y; y < l.body.Max.Y; y++ {
		row := []rune(screen[y])
		for x, r := range row {
			inside := x >= l.modal.Min.X && x < l.modal.Max.X
			if !inside && r != ' ' {
				t.Fatalf("row %d column %d shows %q outside the modal (columns %d-%d): %q", y, x, r, l.modal.Min.X, l.modal.Max.X-1, screen[y])
			}
		}
		if first < 0 && strings.TrimSpace(screen[y]) != "" {
			first = y
		}
	}
	if first < 0 {
		t.Fatal("the overlay is not on screen")
	}
	// The overlay is drawn whole from its top border: its lines are the
	// screen's, in the modal's columns, nothing of the panes mixed in.
	for i, line := range top {
		y := first + i
		if y >= l.body.Max.Y {
			t.Fatalf("the overlay's line %d is below the body", i)
		}
		got := string([]rune(screen[y])[l.modal.Min.X:l.modal.Max.X])
		if got != panesFitPlain(line, l.modal.Dx()) {
			t.Fatalf("row %d:\n got %q\nwant %q", y, got, line)
		}
	}
	if !strings.HasPrefix(strings.TrimLeft(top[0], " "), "╭") {
		t.Fatalf("the overlay does not start with its top border: %q", top[0])
	}
}

func panesFitPlain(s string, w int) string { return ansi.Strip(panes.Fit(s, w)) }

// A click outside a dialog that answers the server does nothing: the
// request stays open and can still be answered.
func TestClickOutsideAskKeepsRequest(t *testing.T) {
	for _, c := range []struct{ name, method, params string }{
		{"elicitation", "elicitation/create", elicitParams},
		{"url", "elicitation/create", urlParams},
		{"sampling", "sampling/createMessage", samplingParams},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestModel("dark", 80, 24)
			feed(m, sessionEvents())
			a := queueAsk(m, c.method, c.params)
			for _, pt := range [][2]int{{0, 0}, {5, m.layout.status.Min.Y}, {70, m.layout.help.Min.Y}, {3, 1}} {
				m.Update(tea.MouseClickMsg{X: pt[0], Y: pt[1], Button: tea.MouseLeft})
			}
			if m.modal != modalAsk || len(m.queue) != 1 {
				t.Fatalf("a click outside closed the ask (modal %d, %d queued)", m.modal, len(m.queue))
			}
			select {
			case r := <-a.reply:
				t.Fatalf("the click answered the server: %+v", r)
			default:
			}
			press(m, "esc") // cancel (elicitation) or decline (sampling): an answer
			select {
			case r := <-a.reply:
				if r.err == nil && !strings.Contains(string(r.result), `"cancel"`) {
					t.Fatalf("esc answered %s", r.result)
				}
			default:
				t.Fatal("esc did not answer the request")
			}
		})
	}
	// A modal that only shows something still closes on a click outside.
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	press(m, "H")
	m.Update(tea.MouseClickMsg{X: 1, Y: 0, Button: tea.MouseLeft})
	if m.modal != modalNone {
		t.Fatal("a click outside the handshake did not close it")
	}
}

// Several pending asks: the modal says which one of how many it shows.
func TestSeveralAsksShowOneOfN(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	first := queueAsk(m, "sampling/createMessage", samplingParams)
	queueAsk(m, "elicitation/create", elicitParams)
	queueAsk(m, "elicitation/create", urlParams)
	if s := ansi.Strip(content(m)); !strings.Contains(s, "1 of 3") {
		t.Fatalf("three asks, the title does not say 1 of 3:\n%s", s)
	}
	press(m, "esc") // decline the sampling request
	if r := <-first.reply; r.err == nil {
		t.Fatalf("esc on sampling answered %s, want a refusal", r.result)
	}
	if s := ansi.Strip(content(m)); !strings.Contains(s, "1 of 2") || !strings.Contains(s, "Who is travelling?") {
		t.Fatalf("after one answer the next ask should show as 1 of 2:\n%s", s)
	}
}

// Every key the form answers to where the cursor is appears in the help
// bar, even at 60×15 (the structural keys are listed only where they do
// something, so that they fit).
func TestEveryFormKeyShownAt60x15(t *testing.T) {
	for _, c := range modalCases {
		if c.name != "tools-form" && c.name != "elicitation" {
			continue
		}
		m := newTestModel("dark", 60, 15)
		feed(m, sessionEvents())
		c.open(t, m)
		for i := 0; i < 14; i++ { // every field of book_trip, and the elicitation's
			screen := ansi.Strip(content(m))
			for _, b := range m.helpBindings() {
				if want := b.Help().Key + " " + b.Help().Desc; !strings.Contains(screen, want) {
					t.Errorf("%s, field %d: the help bar lacks %q:\n%s", c.name, i, want, screen)
				}
			}
			press(m, "tab")
		}
	}
}

// A click on a form's row puts the cursor there (and typing fills it), in
// the tools form and in an elicitation; a second click on a toggle acts.
func TestClickOnAFormRowFocusesIt(t *testing.T) {
	rowOf := func(m *Model, label string) int {
		for y, l := range strings.Split(ansi.Strip(content(m)), "\n") {
			if strings.Contains(l, label) {
				return y
			}
		}
		t.Fatalf("no %q on screen:\n%s", label, ansi.Strip(content(m)))
		return -1
	}
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	withBookTrip(t, m)
	press(m, "3", "enter")
	m.Update(tea.MouseClickMsg{X: 8, Y: rowOf(m, "to*"), Button: tea.MouseLeft})
	press(m, "C", "D", "G")
	f := m.tools.(*panes.Tools).Form()
	v, _ := f.Value()
	if !strings.Contains(string(v), `"to":"CDG"`) {
		t.Fatalf("the click did not focus legs/0/to: %s", v)
	}

	m = newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	queueAsk(m, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"ok":{"type":"boolean"}}}}`)
	y := rowOf(m, "ok ")
	m.Update(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	m.Update(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	if v, _ := m.ask.Form().Value(); string(v) != `{"ok":false}` {
		t.Fatalf("two clicks on the omitted boolean gave %s, want it present", v)
	}
	m.Update(tea.MouseClickMsg{X: 10, Y: y, Button: tea.MouseLeft})
	if v, _ := m.ask.Form().Value(); string(v) != `{"ok":true}` {
		t.Fatalf("a third click did not toggle it: %s", v)
	}
}

// A click outside a sampling dialog leaves it exactly as it was: the
// reply typed so far is still there and is what the server gets. (Closing
// the dialog and showing the queued request again passes the test above,
// since the request stays queued, but starts the dialog afresh and loses
// what was typed.)
func TestClickOutsideAskKeepsTheTypedReply(t *testing.T) {
	m := newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	a := queueAsk(m, "sampling/createMessage", samplingParams)
	for _, r := range "Hello there" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if got := m.ask.Reply(); got != "Hello there" {
		t.Fatalf("the reply holds %q before the click", got)
	}
	for _, pt := range [][2]int{{0, 0}, {5, m.layout.status.Min.Y}, {70, m.layout.help.Min.Y}} {
		m.Update(tea.MouseClickMsg{X: pt[0], Y: pt[1], Button: tea.MouseLeft})
	}
	if m.modal != modalAsk {
		t.Fatalf("a click outside closed the dialog (modal %d)", m.modal)
	}
	if got := m.ask.Reply(); got != "Hello there" {
		t.Fatalf("after a click outside the reply holds %q, want what was typed", got)
	}
	if s := ansi.Strip(content(m)); !strings.Contains(s, "Hello there") {
		t.Fatalf("the typed reply is not on screen after the click:\n%s", s)
	}
	select {
	case r := <-a.reply:
		t.Fatalf("the click answered the server: %+v", r)
	default:
	}
}

// openLongResult opens a result whose arguments wrap over three lines at
// 80 columns, with its response frame (for v).
func openLongResult(m *Model) {
	args := json.RawMessage(`{"destination":"Lisbon, Portugal","travellers":[{"name":"Ada Lovelace","age":36},{"name":"Charles Babbage","age":41}],"notes":"window seats, vegetarian meals, a late check-out if possible"}`)
	result := `{"content":[{"type":"text","text":"booked: LIS-4471"}],"structuredContent":{"ref":"LIS-4471","total":{"amount":1180,"currency":"EUR"}}}`
	resp := &mcp.Frame{Seq: 12, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "9", Raw: []byte(`{"jsonrpc":"2.0","id":9,"result":` + result + `}`)}
	_, cmd := m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "book_trip", Args: args,
		Result: json.RawMessage(result), Latency: 1234 * time.Millisecond, Seq: 12, Response: resp}})
	runCmd(m, cmd)
}

// In the result view the help bar shows every key it has, v included.
func TestResultHelpBarShowsEveryKey(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 35}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		openLongResult(m)
		lines := strings.Split(ansi.Strip(content(m)), "\n")
		bar := strings.Join(lines[m.layout.help.Min.Y:], "\n")
		for _, b := range m.ShortHelp() {
			if !b.Enabled() {
				continue
			}
			if want := b.Help().Key + " " + b.Help().Desc; !strings.Contains(bar, want) {
				t.Errorf("%dx%d: help bar lacks %q:\n%s", sz.w, sz.h, want, bar)
			}
		}
		if !strings.Contains(bar, "v raw response") {
			t.Errorf("%dx%d: no v raw response in the help bar:\n%s", sz.w, sz.h, bar)
		}
	}
}
