package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// A session file is made to be handed to others, so nothing in one is run
// because the file says so: the command its header names (and the
// directory and environment values it gives) is shown and started only
// when the person asks for it, by giving the server after -- or by
// answering yes on a terminal.

// recordedDemo reports whether a header names mcpscope's own demo server,
// which is started from this binary, whatever command the file records.
func recordedDemo(h *record.Entry) bool { return h.Target == "built-in demo server" }

// recordedServer says what a session file's header would start, for a
// person to read: the command with its directory and the environment
// values the file gives, or the URL; every part escaped for the terminal.
// It is empty when the header names neither.
func recordedServer(h *record.Entry) string {
	switch {
	case len(h.Command) > 0:
		s := "the command " + shellLine(h.Command)
		if h.Cwd != "" {
			s += " in " + termsafe.String(h.Cwd)
		}
		var set []string
		for k, v := range h.Env {
			if v != record.Redacted {
				set = append(set, termsafe.String(k))
			}
		}
		if len(set) > 0 {
			sort.Strings(set)
			s += " with " + strings.Join(set, ", ") + " set from the file"
		}
		return s
	case isURLTarget(h.Target):
		return "the server at " + termsafe.String(h.Target)
	}
	return ""
}

// recordedHint is how to run the recorded server oneself: the arguments
// after the session file, escaped for the terminal.
func recordedHint(h *record.Entry) string {
	if len(h.Command) > 0 {
		return "-- " + shellLine(h.Command)
	}
	return termsafe.String(h.Target)
}

// shellLine is argv as a person would type it in a POSIX shell, escaped
// for the terminal.
func shellLine(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = termsafe.String(shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes one argument for a POSIX shell when it needs it.
func shellQuote(a string) string {
	if a == "" {
		return "''"
	}
	if strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// consentToRecorded lets a command (run, as "mcpscope replay") start the
// server a session file's header names: at once for the built-in demo
// server, after a yes on a terminal, never otherwise (a usage error that
// names the recorded server and how to run it).
func consentToRecorded(in io.Reader, stderr io.Writer, run, path string, h *record.Entry) error {
	if recordedDemo(h) {
		return nil
	}
	what := recordedServer(h)
	if what == "" {
		return nil // recordedTarget says the file names no server
	}
	shown := termsafe.String(path)
	again := fmt.Sprintf("%s %s %s", run, shown, recordedHint(h))
	if interactive(in, stderr) {
		_, _ = fmt.Fprintf(stderr, "%s was recorded against %s.\nStart it now? [y/N] ", shown, what)
		line, _ := bufio.NewReader(in).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return nil
		}
		return withCode(exitUsage, fmt.Errorf("nothing started; to run it without this question: %s", again))
	}
	return withCode(exitUsage, fmt.Errorf("%s was recorded against %s; a session file never starts a server by itself. Give the server yourself: %s (or run this on a terminal and answer yes)",
		shown, what, again))
}

// interactive reports whether a question can be asked: stdin and stderr
// are a terminal.
func interactive(in io.Reader, stderr io.Writer) bool {
	f, ok := in.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && isTerminal(stderr)
}
