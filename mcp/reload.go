package mcp

// The TransportEvent kinds of hot reload (mcpscope --watch, tap --watch):
// timeline rows about the server being replaced, which a session file
// keeps like any transport row, so that `open` and a tap's viewer show a
// reload as the live TUI did.
const (
	// TransportRestart: the server was replaced after a change; the
	// summary names the change and the build's time ("restarted after
	// src/tools.py changed; build 1.2 s"). The log draws it as the
	// separator between the two servers' conversations.
	TransportRestart = "restart"
	// TransportBuild: a build that failed (the running server is kept);
	// its fields hold the command and its output, a line a field.
	TransportBuild = "build"
	// TransportSurface: what the new server offers that the previous one
	// did not (tools, resources, templates and prompts added, removed or
	// changed, each breaking or compatible), one field per change keyed
	// by its class.
	TransportSurface = "surface"
	// TransportRerun: the last request made by hand, sent again after a
	// restart, and how its answer differs from the one before.
	TransportRerun = "rerun"
	// TransportWatch: what the watch says of itself: a watched directory
	// removed (the watch waits for it) or back, a path no longer watched
	// because it changed right after every restart.
	TransportWatch = "watch"
)

// IsReloadRow reports whether a transport row is one of hot reload's:
// they are about the server, not the transport, and stay in the log
// when transport rows are hidden.
func (e TransportEvent) IsReloadRow() bool {
	switch e.Kind {
	case TransportRestart, TransportBuild, TransportSurface, TransportRerun, TransportWatch:
		return true
	}
	return false
}
