// Package errline picks, from what a process wrote to stderr (a server
// that failed to start, a failed build), the line that says what went
// wrong: the error of a Node, Python, Java or JavaScript trace, a Go or
// Rust panic, a compiler's first error. The last line is often a
// trailer ("Node.js v22.12.0", "exit status 2", Rust's note about
// RUST_BACKTRACE) with the error ten or twenty lines above it. Every
// summary of a process's stderr goes through Pick, so that they agree.
package errline

import (
	"regexp"
	"strings"
	"sync"
)

// Window is how many of a process's last stderr lines a caller should
// keep for Pick: a Node trace puts its error up to about twenty lines
// before its end (ten frames, the error's own fields, the trailer), a Go
// panic its message before the panicking goroutine's stack.
const Window = 64

// MaxLine is how much of a line a caller needs to keep for Pick: the
// error lines it picks are short, and a line of a megabyte is no summary.
const MaxLine = 4 << 10

// patterns are compiled at the first Pick, not at every start of every
// command: most runs never explain a failure.
type patterns struct {
	exception  *regexp.Regexp
	javaCause  *regexp.Regexp
	javaThread *regexp.Regexp
	goPanic    *regexp.Regexp
	rustPanic  *regexp.Regexp
	nodeWhere  *regexp.Regexp
	diagnostic *regexp.Regexp
	trailer    *regexp.Regexp
}

var compiled = sync.OnceValue(func() *patterns {
	return &patterns{
		// An exception's line: Node's and JavaScript's "Error: …",
		// "SyntaxError: …", "Error [ERR_MODULE_NOT_FOUND]: …", Python's
		// "ModuleNotFoundError: …", Java's "java.lang.IllegalStateException: …".
		exception: regexp.MustCompile(`^(?:Uncaught )?(?:[A-Za-z_$][\w$]*\.)*[\w$]*(?:Error|Exception)(?: \[[\w-]+\])?(?::\s|$)`),
		// Java's chain: the deepest cause is the one to fix.
		javaCause:  regexp.MustCompile(`^Caused by: (.+)$`),
		javaThread: regexp.MustCompile(`^Exception in thread "[^"]*" (.+)$`),
		goPanic:    regexp.MustCompile(`^(?:panic: |fatal error: )`),
		// Rust: "thread 'main' (123) panicked at src/main.rs:3:33:" with the
		// message on the next line (before 1.73: on the same one).
		rustPanic: regexp.MustCompile(`^thread '[^']*'(?: \(\d+\))? panicked at `),
		// Where Node says a syntax error or a throw is ("file:///srv/x.mjs:3"),
		// a few lines above the error.
		nodeWhere: regexp.MustCompile(`^(?:file://)?/\S*:\d+$`),
		// A compiler's diagnostic: tsc's "src/a.ts(3,7): error TS2322: …",
		// Go's "./main.go:4:7: undefined: x", rustc's "error[E0425]: …", a
		// tool's "error: …".
		diagnostic: regexp.MustCompile(`^(?:\S+?(?:\(\d+,\d+\)|:\d+:\d+):\s|(?i:error|fatal)(?:\[\w+\])?:\s|npm (?:error|ERR!) )`),
		// Lines that end a trace and say nothing of the error.
		trailer: regexp.MustCompile(`^(?:Node\.js v[\d.]+|exit status \d+|note: (?:run with|Some details are omitted).*|\(Use ` + "`" + `node --trace-.*|[}\])]+|\.\.\. \d+ more)$`),
	}
})

const pythonTraceback = "Traceback (most recent call last):"

// Pick returns the line of lines (a process's last stderr lines, oldest
// first) that says what went wrong, trimmed; "" when there is none (no
// line but blanks and trailers).
func Pick(lines []string) string {
	re := compiled()
	if s := exceptionLine(lines); s != "" {
		return s
	}
	for _, l := range lines {
		if re.diagnostic.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !re.trailer.MatchString(l) {
			return l
		}
	}
	return ""
}

// exceptionLine is the last trace's error, or "".
func exceptionLine(lines []string) string {
	re := compiled()
	// Python: the first unindented line after the last traceback header
	// is its exception, whatever the exception's name.
	py := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == pythonTraceback {
			for j := i + 1; j < len(lines); j++ {
				if l := lines[j]; l != "" && l[0] != ' ' && l[0] != '\t' {
					py = j
					break
				}
			}
			break
		}
	}
	for i := len(lines) - 1; i > py; i-- {
		l := strings.TrimRight(lines[i], " \t")
		switch {
		case re.exception.MatchString(l):
			return withNodeWhere(strings.TrimPrefix(l, "Uncaught "), lines[max(0, i-4):i])
		case re.javaCause.MatchString(l):
			return re.javaCause.FindStringSubmatch(l)[1]
		case re.javaThread.MatchString(l):
			return re.javaThread.FindStringSubmatch(l)[1]
		case re.goPanic.MatchString(l):
			return l
		case re.rustPanic.MatchString(l):
			if strings.HasSuffix(l, ":") && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				return l + " " + strings.TrimSpace(lines[i+1])
			}
			return l
		}
	}
	if py >= 0 {
		return strings.TrimSpace(lines[py])
	}
	return ""
}

// withNodeWhere adds where Node says the error is ("file:///srv/x.mjs:3"),
// when the lines above it name a file of the server's (not one of Node's
// own, "node:internal/…").
func withNodeWhere(line string, above []string) string {
	re := compiled()
	for _, a := range above {
		if a = strings.TrimSpace(a); re.nodeWhere.MatchString(a) {
			return line + " (at " + a + ")"
		}
	}
	return line
}

// Lines splits a process's output (a build's) into lines for Pick.
func Lines(out []byte) []string {
	return strings.Split(strings.TrimRight(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n"), "\n")
}
