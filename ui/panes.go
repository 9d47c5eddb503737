package ui

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/themes"
)

// The root model talks to the capabilities, tools and handshake panes
// through these interfaces, defined here where they are consumed. Their
// implementations live in package panes; the assertions below make a
// renamed method a compile error, not a call that silently stops happening.

type capsPane interface {
	panes.Pane
	SetHandshake(*mcp.Handshake)
	SetList(method string, items []json.RawMessage)
	SetListFailed(panes.Failure)
	// SetFailed says why the connection failed before any handshake.
	SetFailed(why string)
}

type toolsPane interface {
	panes.Pane
	// SetTools's Cmd counts the list's tokens and client views.
	SetTools([]mcp.Tool) tea.Cmd
	SetFailed(panes.Failure)
	// SetServer names the server for the clients' prefixes; SetClient
	// starts the list in the view of the client really connected (a tap).
	SetServer(mcp.Implementation)
	SetClient(clients.ID)
	// ViewAs is the client view shown (generic: the list as served).
	ViewAs() clients.ID
	// Tools is the list as last set.
	Tools() []mcp.Tool
	// SetGate says whether the server offers tools at all, and why not.
	SetGate(panes.Gate)
	// SetUnlisted says why no tools/list will come.
	SetUnlisted(why string)
	// SetReadOnly says why the source sends nothing, "" when it sends.
	SetReadOnly(why string)
	// SetOrigin is where the pane is drawn: the mouse tells the list from
	// the details by position.
	SetOrigin(x, y int)
	// Editing reports whether the arguments editor or form is open.
	Editing() bool
	// SetSavedCalls lists the saved calls under their tools; LoadCall
	// opens a saved call's tool form holding its arguments.
	SetSavedCalls([]panes.SavedCall)
	LoadCall(panes.SavedCall) (tea.Cmd, error)
}

var (
	_ capsPane      = (*panes.Caps)(nil)
	_ toolsPane     = (*panes.Tools)(nil)
	_ handshakePane = (*panes.Handshake)(nil)
)

type handshakePane interface {
	panes.Pane
	SetHandshake(*mcp.Handshake)
}

// themed is implemented by panes that can switch theme after start (the
// terminal's background colour arrives after the first frame).
type themed interface{ SetTheme(*themes.Theme) }

// focus names the pane with the keyboard.
type focus uint8

const (
	focusLog focus = iota
	focusCaps
	focusTools
	focusResources
	focusPrompts
	focusServerLog
	focusActivity
	focusRoots
	focusDiagnostics
	numFocus
)

// firstExplorer is the first pane that shares the wide layout's lower
// right slot (tools, resources, prompts, server log, activity, roots).
const firstExplorer = focusTools

func (f focus) String() string {
	switch f {
	case focusLog:
		return "log"
	case focusCaps:
		return "capabilities"
	case focusTools:
		return "tools"
	case focusResources:
		return "resources"
	case focusPrompts:
		return "prompts"
	case focusServerLog:
		return "server log"
	case focusActivity:
		return "activity"
	case focusRoots:
		return "roots"
	case focusDiagnostics:
		return "diagnostics"
	}
	return "?"
}

// modal names the overlay on top of the panes, if any.
type modal uint8

const (
	modalNone modal = iota
	modalDetail
	modalHandshake
	modalHelp
	modalResult
	modalAsk     // a server request waiting for the user's answer
	modalContent // a resource, prompt or task result
	modalCalls   // every saved call
)

// The constructors of the panes the root model holds behind the interfaces
// above.
func newCapsPane(t *themes.Theme, k keymap.KeyMap) capsPane { return panes.NewCaps(t, k) }

func newToolsPane(t *themes.Theme, k keymap.KeyMap) toolsPane { return panes.NewTools(t, k) }

func newHandshakePane(t *themes.Theme, k keymap.KeyMap) handshakePane {
	return panes.NewHandshake(t, k)
}
