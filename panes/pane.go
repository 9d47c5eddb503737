// Package panes holds the UI's components: the message log, the frame
// detail, the capabilities tree, the tools list, the handshake and result
// views. Each is a pointer type that implements Pane; the root model in
// package ui feeds them data by direct method calls (log.Append,
// caps.SetHandshake, ...) and routes key and mouse messages to the focused
// one through Update.
package panes

import (
	"encoding/json"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/panes/box"
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

// Measured is implemented by a pane that can say how wide it would like to
// be, border included: need is the width below which it cuts what matters
// (the tools list's names and badges, or its schema no longer fits beside
// them), want the width at which nothing is cut; 0, 0 when it has no
// opinion. The wide layout sizes its right column from them, so the split
// follows what the pane holds. It is called after every message: keep it
// cheap (measure when the content changes, not per call).
type Measured interface {
	ContentWidth() (need, want int)
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
	Response *mcp.Frame      // the response frame itself (v shows its bytes), nil when there was none
	Latency  time.Duration   // from the request to its answer or failure
	// OutputSchema is the tool's declared outputSchema, if any: the result
	// view validates structuredContent against it.
	OutputSchema json.RawMessage
	// Client is the client view the Tools pane shows: the result's
	// header says that client's limits.
	Client clients.ID
	// Compared, when set, is this answer compared with the one before it
	// (--rerun after a restart), shown above it.
	Compared *Comparison
	// Template is the tool's view (an MCP Apps or skybridge ui:// URI),
	// empty when it has none: the preview key is offered then.
	Template string
}

// CloseMsg asks the root model to close the modal that sent it.
type CloseMsg struct{}

// CopyMsg asks the root to put Text on the clipboard and say what was
// copied and where: by OSC 52, which the terminal carries out and never
// acknowledges (the note says what to do when nothing arrives; Else:
// another way to get it, such as saving it to a file), or the system
// clipboard in a tmux that swallows OSC 52.
type CopyMsg struct {
	What string // "result", "frame #12"
	Text string
	Else string // "s saves a file", or ""
}

// Box draws a pane's rounded border around body lines, with the title set
// into the top edge, in exactly w×h cells (see package box).
func Box(t *themes.Theme, title string, focused bool, w, h int, body []string) string {
	return box.Draw(t, title, focused, w, h, body)
}

// TitleKeeping is title then tail, for a box w cells wide, with the title
// cut so that the tail (a position, a mode) stays readable.
func TitleKeeping(title, tail string, w int) string { return box.TitleKeeping(title, tail, w) }

// Fit cuts or pads a (possibly styled) line to exactly w cells.
func Fit(line string, w int) string { return box.Fit(line, w) }

// helpOnce is a full help whose groups list each key and its words once:
// a pane's own keys and its list's share some (sideways, wrap, up and
// down), and the overlay would show them twice. Later repeats are dropped,
// and groups left empty with them.
func helpOnce(groups ...[]key.Binding) [][]key.Binding {
	seen := map[[2]string]bool{}
	out := make([][]key.Binding, 0, len(groups))
	for _, g := range groups {
		var kept []key.Binding
		for _, b := range g {
			kd := [2]string{b.Help().Key, b.Help().Desc}
			if b.Enabled() && seen[kd] {
				continue
			}
			if b.Enabled() {
				seen[kd] = true
			}
			kept = append(kept, b)
		}
		if len(kept) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// enabledIf is bs, each disabled unless on (a key already disabled stays
// so): a help bar offers only the keys that act on what the pane holds.
func enabledIf(on bool, bs ...key.Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		b.SetEnabled(on && b.Enabled())
		out[i] = b
	}
	return out
}
