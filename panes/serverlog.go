package panes

import (
	"encoding/json"
	"fmt"
	"image/color"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// LogLevels are RFC 5424's levels as MCP names them, lowest first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ServerLog shows the server's notifications/message entries coloured by
// level, and picks the logging level (logging/setLevel in the legacy era,
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
}

// logLine is one notifications/message: its params are a view of the
// frame's bytes (kept once, by the frame), decoded only when the line is
// drawn. A flood of 200,000 log messages keeps no second copy of them.
type logLine struct {
	at     time.Time
	params json.RawMessage
}

// decode reads the level, logger and data (a string's value, or any other
// JSON as it was sent).
func (l logLine) decode() (level, logger, data string) {
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(l.params, &p)
	data = string(p.Data)
	var str string
	if json.Unmarshal(p.Data, &str) == nil {
		data = str
	}
	return p.Level, p.Logger, data
}

// NewServerLog makes the server-log pane.
func NewServerLog(t *themes.Theme, k keymap.KeyMap) *ServerLog {
	return &ServerLog{theme: t, keys: k, pick: 1, gate: Gate{OK: true}}
}

func (s *ServerLog) SetTheme(t *themes.Theme) { s.theme = t }
func (s *ServerLog) Title() string {
	lvl := s.level
	if lvl == "" {
		lvl = "not set"
	}
	return fmt.Sprintf("Server log (%d) · level %s", len(s.entries), lvl)
}
func (s *ServerLog) SetSize(w, h int) { s.w, s.h = w, h }
func (s *ServerLog) Focus()           { s.focused = true }
func (s *ServerLog) Blur()            { s.focused = false; s.picking = false }
func (s *ServerLog) Capturing() bool  { return s.picking }

// SetGate says whether logging was declared; modern says the level goes
// in each request's _meta rather than logging/setLevel.
func (s *ServerLog) SetGate(g Gate, modern bool) { s.gate, s.modern = g, modern }

// SetLevel records the level in effect.
func (s *ServerLog) SetLevel(l string) { s.level = l }

// Len is the number of entries.
func (s *ServerLog) Len() int { return len(s.entries) }

// Append adds one notifications/message from its params.
func (s *ServerLog) Append(at time.Time, params json.RawMessage) {
	s.entries = append(s.entries, logLine{at: at, params: params})
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
	return []key.Binding{e.Level, e.Clear}
}

func (s *ServerLog) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }

func (s *ServerLog) View() string {
	t := s.theme
	var body []string
	if !s.gate.OK {
		body = append(body, t.Form.Warn.Render("⚠ "+s.gate.Why), t.Form.Hint.Render("l sends the level anyway (this is a debugger)"))
	}
	if s.picking {
		how := "logging/setLevel"
		if s.modern {
			how = "_meta logLevel on every request (2026-07-28 has no logging/setLevel)"
		}
		body = append(body, t.Form.Group.Render("minimum level, sent as "+how))
		for i, l := range LogLevels {
			body = append(body, selRow(t, s.levelStyle(l).Render(l), s.w-2, i == s.pick))
		}
		return Box(t, s.Title(), s.focused, s.w, s.h, body)
	}
	rows := s.h - 2 - len(body)
	start := max(len(s.entries)-rows, 0)
	for _, e := range s.entries[start:] {
		level, logger, data := e.decode()
		st := s.levelStyle(level)
		line := t.Log.Time.Render(e.at.Format("15:04:05.000")) + " " + st.Render(fmt.Sprintf("%-9s", termsafe.String(level)))
		if logger != "" {
			line += t.Detail.Label.Render("[" + termsafe.String(logger) + "] ")
		}
		line += st.Render(termsafe.String(strings.ReplaceAll(data, "\n", " ")))
		body = append(body, line)
	}
	if len(s.entries) == 0 {
		hint := "no notifications/message yet; l picks a level"
		body = append(body, t.Log.Empty.Render(hint))
	}
	return Box(t, s.Title(), s.focused, s.w, s.h, body)
}
