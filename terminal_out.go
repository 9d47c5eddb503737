package main

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/mcpscope/mcpscope/mcp/termsafe"
)

// isTerminal reports whether w is a terminal (a variable for tests).
var isTerminal = func(w io.Writer) bool {
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
