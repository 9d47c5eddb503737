package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// terminalWriter is a writer that says itself whether it is a terminal
// (tests use one to stand for a terminal without a pseudo-terminal).
type terminalWriter interface {
	io.Writer
	IsTerminal() bool
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if tw, ok := w.(terminalWriter); ok {
		return tw.IsTerminal()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// terminalSafe wraps machine output (JSON, or XML with xml) bound for a
// terminal so that the characters a terminal would act on or hide (DEL,
// C1 controls, bidi and zero-width characters) are written as \u escapes
// (XML character references): still valid, still the same data. Output
// to a file or a pipe is left byte for byte.
func terminalSafe(w io.Writer, xml bool) io.Writer {
	if !isTerminal(w) {
		return w
	}
	return termsafe.NewMachineWriter(w, xml)
}
