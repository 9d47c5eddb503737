package tap

import "slices"

// Successor is the tap that carries on l's server once l has ended: the
// newest live tap of the same server (the same name, command or URL)
// started after l. A client that restarts its server (Claude Code's /mcp
// reconnect, an editor reloading its MCP settings) runs a new tap, with a
// new capture, and the viewer of the old one can follow it.
func Successor(l Listed) (Listed, bool) {
	taps, err := List()
	if err != nil {
		return Listed{}, false
	}
	for _, t := range taps { // live ones first, newest first
		if !t.Live {
			break
		}
		if t.ID != l.ID && t.Started.After(l.Started) && sameServer(t.Info, l.Info) {
			return t, true
		}
	}
	return Listed{}, false
}

// sameServer says whether two taps run the same server for their client.
func sameServer(a, b Info) bool {
	return a.Name == b.Name && a.URL == b.URL && a.Transport == b.Transport && slices.Equal(a.Command, b.Command)
}
