package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// LogLevels are RFC 5424's levels as MCP names them, lowest first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelWidth is the level column: the longest level name and a space, so
// "emergency" never runs into its message.
const levelWidth = len("emergency") + 1

// ServerLog shows the server's notifications/message entries coloured by
// level, as a list (panes/list: cursor, paging, wrap, sideways scroll;
// enter opens the entry's frame in the detail view), and picks the logging level (logging/setLevel in the legacy era,
// the per-request _meta logLevel in the modern era).
type ServerLog struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	entries []logLine
	level   string // the level in effect, "" when none was set
	picking bool
	pick    int
	gate    Gate
	modern  bool
	list    *list.Model

	// frames is the log's store: a line whose notification is there is
	// read from it (12 bytes a line); loose holds the others.
	frames *mcp.FrameStore
	loose  []looseLine
}

// logLine is one notifications/message: the index of its frame in the
// log's store and where its params are in the frame's bytes (kept once,
// by the store), decoded only when the line is drawn. A flood of 200,000
// log messages keeps no second copy of them. When ref is -1, off indexes
// loose.
type logLine struct {
	ref    int32
	off, n uint32
}

// looseLine is a line whose frame is not in the store.
type looseLine struct {
	at     time.Time
	params json.RawMessage
	frame  *mcp.Frame // the notification, opened by enter; nil if unknown
}

// SetStore says where the log keeps its frames: lines whose frame is
// there are read from it.
func (s *ServerLog) SetStore(frames *mcp.FrameStore) { s.frames = frames }

// lineAt is when line i arrived and its params as sent.
func (s *ServerLog) lineAt(i int) (time.Time, json.RawMessage) {
	e := s.entries[i]
	if e.ref < 0 {
		l := s.loose[e.off]
		return l.at, l.params
	}
	var f mcp.Frame
	s.frames.View(int(e.ref), &f)
	return f.Time, f.Raw[e.off : e.off+e.n : e.off+e.n]
}

// decodeParams reads the level, logger and data (a string's value, or any
// other JSON as it was sent).
func decodeParams(params json.RawMessage) (level, logger, data string) {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(params, &p)
	data = string(p.Data)
	var str string
	if json.Unmarshal(p.Data, &str) == nil {
		data = str
	}
	return p.Level, p.Logger, data
}

// NewServerLog makes the server-log pane.
func NewServerLog(t *themes.Theme, k keymap.KeyMap) *ServerLog {
	s := &ServerLog{theme: t, keys: k, pick: 1, gate: Gate{OK: true}}
	s.list = list.New(k.Scroll, s.line)
	s.list.SetSelecting(true)
	s.list.SetFollow(true)
	return s
}

func (s *ServerLog) SetTheme(t *themes.Theme) { s.theme = t }
func (s *ServerLog) Title() string            { return s.name() + s.where() }

// name is the title without the position; where is the position, kept
// readable when the pane is too narrow for both (TitleKeeping).
func (s *ServerLog) name() string {
	lvl := s.level
	if lvl == "" {
		lvl = "not set"
	}
	return fmt.Sprintf("Server log (%d) · level %s", len(s.entries), lvl)
}

func (s *ServerLog) where() string {
	if p := s.list.Position(); p != "" && len(s.entries) > 0 {
		return " · " + p
	}
	return ""
}

func (s *ServerLog) boxTitle() string { return TitleKeeping(s.name(), s.where(), s.w) }

// SetSize sets the outer size; the list gets the rows under the gate's
// warning and a two-cell gutter for the cursor.
func (s *ServerLog) SetSize(w, h int) {
	s.w, s.h = w, h
	s.sizeList()
}

func (s *ServerLog) sizeList() {
	s.list.SetSize(max(s.w-4, 0), max(s.h-2-len(s.gateLines()), 0))
}

func (s *ServerLog) gateLines() []string {
	if s.gate.OK {
		return nil
	}
	t := s.theme
	var out []string
	for _, l := range wrapWords("⚠ "+s.gate.Why, s.w-2, 2) {
		out = append(out, t.Form.Warn.Render(l))
	}
	for _, l := range wrapWords("l sends the level anyway (this is a debugger)", s.w-2, 0) {
		out = append(out, t.Form.Hint.Render(l))
	}
	return out
}

func (s *ServerLog) Focus()          { s.focused = true }
func (s *ServerLog) Blur()           { s.focused = false; s.picking = false }
func (s *ServerLog) Capturing() bool { return s.picking }

// SetGate says whether logging was declared; modern says the level goes
// in each request's _meta rather than logging/setLevel.
func (s *ServerLog) SetGate(g Gate, modern bool) {
	s.gate, s.modern = g, modern
	s.sizeList()
}

// SetLevel records the level in effect.
func (s *ServerLog) SetLevel(l string) { s.level = l }

// Len is the number of entries.
func (s *ServerLog) Len() int { return len(s.entries) }

// Append adds one notifications/message from its params and its frame
// (nil when it is not known; enter then opens nothing). A frame from the
// store (SetStore) whose bytes hold the params, at the same time, is
// referred to rather than kept.
func (s *ServerLog) Append(at time.Time, params json.RawMessage, f *mcp.Frame) {
	if i := s.frames.Index(f); i >= 0 && len(params) > 0 && f.Time.Equal(at) {
		if off := bytes.Index(f.Raw, params); off >= 0 {
			s.entries = append(s.entries, logLine{ref: int32(i), off: uint32(off), n: uint32(len(params))})
			s.list.SetLen(len(s.entries))
			return
		}
	}
	s.entries = append(s.entries, logLine{ref: -1, off: uint32(len(s.loose))})
	s.loose = append(s.loose, looseLine{at: at, params: params, frame: f})
	s.list.SetLen(len(s.entries))
}

// AppendLogged adds one notifications/message whose frame is frame i of
// the store (SetStore): it is read there, in place, for where its params
// are, and referred to. Rebuilding a *mcp.Frame for each line of a flood
// only to find its index again cost an allocation, a weak pointer and a
// cleanup per line.
func (s *ServerLog) AppendLogged(at time.Time, params json.RawMessage, i int) {
	var f mcp.Frame
	s.frames.View(i, &f)
	if len(params) > 0 && f.Time.Equal(at) {
		if off := bytes.Index(f.Raw, params); off >= 0 {
			s.entries = append(s.entries, logLine{ref: int32(i), off: uint32(off), n: uint32(len(params))})
			s.list.SetLen(len(s.entries))
			return
		}
	}
	s.Append(at, params, s.frames.Frame(i))
}

// Selected is the frame of the entry under the cursor, or nil.
func (s *ServerLog) Selected() *mcp.Frame {
	if len(s.entries) == 0 {
		return nil
	}
	e := s.entries[s.list.Cursor()]
	if e.ref < 0 {
		return s.loose[e.off].frame
	}
	return s.frames.Frame(int(e.ref))
}

// ClickRow puts the cursor on the entry drawn on row y of the pane
// (0 is the top border).
func (s *ServerLog) ClickRow(y int) {
	if s.picking {
		return
	}
	if i := s.list.ItemAt(y - 1 - len(s.gateLines())); i >= 0 {
		s.list.Select(i)
	}
}

func (s *ServerLog) levelStyle(level string) lipgloss.Style {
	p := s.theme.Palette
	var c color.Color
	switch level {
	case "debug":
		c = p.Muted
	case "info":
		c = p.Text
	case "notice":
		c = p.Notification
	case "warning":
		c = p.Warn
	case "error", "critical", "alert", "emergency":
		c = p.Error
	default:
		c = p.Warn
	}
	st := lipgloss.NewStyle()
	if c != nil {
		st = st.Foreground(c)
	}
	if level == "critical" || level == "alert" || level == "emergency" {
		st = st.Bold(true)
	}
	return st
}

func (s *ServerLog) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if !s.picking {
			s.list.Update(msg) // the wheel
		}
		return nil
	}
	e := s.keys.Explore
	if s.picking {
		switch {
		case key.Matches(km, e.Up), key.Matches(km, e.PrevChoice):
			s.pick = max(s.pick-1, 0)
		case key.Matches(km, e.Down), key.Matches(km, e.NextChoice):
			s.pick = min(s.pick+1, len(LogLevels)-1)
		case key.Matches(km, e.Open):
			s.picking = false
			lvl := LogLevels[s.pick]
			return func() tea.Msg { return SetLevelMsg{Level: lvl} }
		case key.Matches(km, e.Back):
			s.picking = false
		}
		return nil
	}
	switch {
	case key.Matches(km, e.Level):
		s.picking = true
	case key.Matches(km, e.Clear):
		s.entries = nil
		s.list.SetLen(0)
	case key.Matches(km, e.Open):
		if f := s.Selected(); f != nil {
			return func() tea.Msg { return OpenFrameMsg{Frame: f} }
		}
	default:
		s.list.Update(km)
	}
	return nil
}

func (s *ServerLog) ShortHelp() []key.Binding {
	e := s.keys.Explore
	if s.picking {
		open := e.Open
		open.SetHelp("enter", "set level")
		return []key.Binding{e.Up, e.Down, open, e.Back}
	}
	open := e.Open
	open.SetHelp("enter", "open frame")
	sc := s.keys.Scroll
	// The level can always be set; the rest needs a message to act on.
	return append([]key.Binding{e.Level}, enabledIf(s.list.Len() > 0, sc.Up, sc.Down, open, e.Clear, sc.PageDown, sc.Left, sc.Wrap)...)
}

func (s *ServerLog) FullHelp() [][]key.Binding {
	if s.picking {
		return [][]key.Binding{s.ShortHelp()}
	}
	e := s.keys.Explore
	open := e.Open
	open.SetHelp("enter", "open frame")
	return [][]key.Binding{s.list.FullHelp(), {open, e.Level, e.Clear}}
}

// line is entry i as one row: time, the level in its column, the logger,
// the data with its line breaks shown as spaces.
func (s *ServerLog) line(i int) string {
	t := s.theme
	at, params := s.lineAt(i)
	level, logger, data := decodeParams(params)
	st := s.levelStyle(level)
	lv := termsafe.String(level)
	line := t.Log.Time.Render(at.Format("15:04:05.000")) + " " + st.Render(lv) + strings.Repeat(" ", max(levelWidth-ansi.StringWidth(lv), 1))
	if logger != "" {
		line += t.Detail.Label.Render("[" + termsafe.String(logger) + "] ")
	}
	return line + st.Render(termsafe.String(strings.ReplaceAll(data, "\n", " ")))
}

func (s *ServerLog) View() string {
	t := s.theme
	body := s.gateLines()
	if s.picking {
		how := "logging/setLevel"
		if s.modern {
			how = "_meta logLevel on every request (2026-07-28 has no logging/setLevel)"
		}
		body = append(body, t.Form.Group.Render("minimum level, sent as "+how))
		for i, l := range LogLevels {
			body = append(body, selRow(t, s.levelStyle(l).Render(l), s.w-2, i == s.pick))
		}
		return Box(t, s.boxTitle(), s.focused, s.w, s.h, body)
	}
	if len(s.entries) == 0 {
		hint := "no notifications/message yet; l picks a level"
		body = append(body, t.Log.Empty.Render(hint))
		return Box(t, s.boxTitle(), s.focused, s.w, s.h, body)
	}
	cursor, prev := s.list.Cursor(), -1
	for _, r := range s.list.RenderRows() {
		row := selRow(t, r.Text, s.w-2, s.focused && r.Item == cursor)
		if r.Item == prev && s.focused && r.Item == cursor {
			row = t.Tools.Selected.Render(Fit("  "+r.Text, s.w-2)) // a wrapped entry's next rows
		}
		prev = r.Item
		body = append(body, row)
	}
	return Box(t, s.boxTitle(), s.focused, s.w, s.h, body)
}
