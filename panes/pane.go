// Package panes holds the UI's components: the message log, the frame
// detail, the capabilities tree, the tools list, the handshake and result
// views. Each is a pointer type that implements Pane; the root model in
// package ui feeds them data by direct method calls (log.Append,
// caps.SetHandshake, ...) and routes key and mouse messages to the focused
// one through Update.
package panes

import (
	"encoding/json"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// Pane is the contract every component honours.
type Pane interface {
	// Update handles a message routed to the pane (keys and mouse when it is
	// focused, its own command results) and mutates the pane in place.
	Update(msg tea.Msg) tea.Cmd
	// View renders the pane, border included, in exactly w×h cells.
	View() string
	// SetSize sets the outer size (border included).
	SetSize(w, h int)
	Focus()
	Blur()
	// Title is the pane's name for its border and for the tab row.
	Title() string
	// ShortHelp and FullHelp list the pane's keys for the help bar.
	help.KeyMap
}

// Capturing is implemented by panes that can hold a text input (a filter,
// a form). While Capturing reports true the root model sends every key to
// the pane instead of treating q, tab or ? as global keys.
type Capturing interface {
	Capturing() bool
}

// OpenFrameMsg asks the root model to open a frame in the detail view.
// It carries the frame itself: sequence numbers restart on reconnect.
type OpenFrameMsg struct{ Frame *mcp.Frame }

// CallToolMsg asks the root model to call a tool with the given arguments.
// The root runs tools/call as a Cmd and answers with ToolResultMsg.
type CallToolMsg struct {
	Name string
	Args json.RawMessage
}

// ToolResultMsg is the outcome of a CallToolMsg: the raw result, or a
// JSON-RPC error from the server, or a local error (timeout, cancel, lost).
type ToolResultMsg struct {
	Name     string
	Args     json.RawMessage
	Result   json.RawMessage // set on success
	RPCError error           // an *mcp.RPCError the server sent
	Err      error           // anything else: *mcp.LocalError, closed client
	Seq      int64           // the response frame, 0 when there was none
	Latency  time.Duration   // from the request to its answer or failure
	// OutputSchema is the tool's declared outputSchema, if any: the result
	// view validates structuredContent against it.
	OutputSchema json.RawMessage
}

// CloseMsg asks the root model to close the modal that sent it.
type CloseMsg struct{}

// Box draws a pane's rounded border around body lines, with the title set
// into the top edge, in exactly w×h cells. Lines are cut or padded to the
// inner width with x/ansi, so styled lines are never cut inside an escape
// sequence. Panes use it instead of lipgloss borders because lipgloss has no
// border titles and because it costs only what is visible.
func Box(t *themes.Theme, title string, focused bool, w, h int, body []string) string {
	if w < 2 || h < 2 {
		return blank(w, h)
	}
	border := lipgloss.RoundedBorder()
	edge := t.Pane.Blurred
	titleStyle := t.Pane.TitleBlurred
	if focused {
		edge = t.Pane.Focused
		titleStyle = t.Pane.Title
		if t.Plain {
			border = lipgloss.ThickBorder()
		}
	}
	// The border characters take only the border colour.
	paint := lipgloss.NewStyle().Foreground(edge.GetBorderTopForeground())
	if t.Plain {
		paint = lipgloss.NewStyle()
	}
	inner := w - 2
	var b strings.Builder
	b.Grow((w + 16) * h)

	// Top edge: ╭─ Title ─────╮
	b.WriteString(paint.Render(border.TopLeft))
	used := 0
	if title != "" && inner > 4 {
		tt := ansi.Truncate(title, inner-3, "…")
		b.WriteString(paint.Render(border.Top))
		b.WriteString(" ")
		b.WriteString(titleStyle.Render(tt))
		b.WriteString(" ")
		used = 3 + ansi.StringWidth(tt)
	}
	if inner-used > 0 {
		b.WriteString(paint.Render(strings.Repeat(border.Top, inner-used)))
	}
	b.WriteString(paint.Render(border.TopRight))
	b.WriteByte('\n')

	left, right := paint.Render(border.Left), paint.Render(border.Right)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteString(left)
		b.WriteString(Fit(line, inner))
		b.WriteString(right)
		b.WriteByte('\n')
	}
	b.WriteString(paint.Render(border.BottomLeft + strings.Repeat(border.Bottom, inner) + border.BottomRight))
	return b.String()
}

// Fit cuts or pads a (possibly styled) line to exactly w cells.
func Fit(line string, w int) string {
	if w <= 0 {
		return ""
	}
	lw := ansi.StringWidth(line)
	if lw > w {
		line = ansi.Truncate(line, w, "…")
		lw = ansi.StringWidth(line)
	}
	if lw < w {
		line += strings.Repeat(" ", w-lw)
	}
	return line
}

// blank is w×h spaces.
func blank(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	row := strings.Repeat(" ", w)
	rows := make([]string, h)
	for i := range rows {
		rows[i] = row
	}
	return strings.Join(rows, "\n")
}
