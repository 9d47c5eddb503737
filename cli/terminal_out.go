package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/spf13/cobra"
)

// Everything a command writes to a terminal goes through one path: the
// root command wraps stdout and stderr (wrapTerminals) so that no
// character a terminal would act on or hide reaches it, whatever the
// command wrote, and a command whose output is JSON or XML asks
// terminalOutput for the escaping that keeps it valid. Output to a file
// (-o) or a pipe is left byte for byte.

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

// outputForm is what a command writes: text (reports, listings,
// Markdown, messages), JSON, or XML (JUnit, HTML).
type outputForm int

const (
	formText outputForm = iota
	formJSON
	formXML
)

// safeTerminal is a terminal behind termsafe's escaping; it is still a
// terminal to isTerminal, and terminalOutput re-wraps the terminal under
// it rather than escaping twice.
type safeTerminal struct {
	io.Writer
	under io.Writer
}

func (safeTerminal) IsTerminal() bool { return true }

// terminalOutput is w as a command writing form should write to it: on a
// terminal, the characters a terminal would act on or hide (ESC and the
// other C0 controls but line feed and tab, DEL, C1, bidi and zero-width
// characters, invalid UTF-8) are written as visible escapes; JSON stays
// valid JSON (\u escapes) and XML valid XML (character references) with
// the same data. Anything else is returned as it is.
func terminalOutput(w io.Writer, form outputForm) io.Writer {
	if st, ok := w.(*safeTerminal); ok {
		w = st.under
	}
	if !isTerminal(w) {
		return w
	}
	var esc io.Writer
	switch form {
	case formJSON:
		esc = termsafe.NewMachineWriter(w, false)
	case formXML:
		esc = termsafe.NewMachineWriter(w, true)
	default:
		esc = termsafe.NewTextWriter(w)
	}
	return &safeTerminal{Writer: esc, under: w}
}

// formOf is the form of a --format value.
func formOf(format string) outputForm {
	switch format {
	case "json", "sarif", "har", "otlp":
		return formJSON
	case "junit", "html":
		return formXML
	}
	return formText
}

// wrapTerminals makes the root command's stdout and stderr text outputs
// (terminalOutput) before any command runs: a message, a warning or a
// report that quotes a server's string cannot drive the terminal, even
// one written by a command that does not think of it.
func wrapTerminals(cmd *cobra.Command) {
	root := cmd.Root()
	root.SetOut(terminalOutput(root.OutOrStdout(), formText))
	root.SetErr(terminalOutput(root.ErrOrStderr(), formText))
}
