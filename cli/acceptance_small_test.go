package cli

// Acceptance flows for small terminals and cut text: at 60×15 and 80×24
// the header keeps the connection state, the help bar folds, a log row
// keeps its method, prompts wrap, the raw JSON's line numbers line up,
// the full help opens on a legend of the short tab names, a reconnect
// clears the old status, and an opened recording says it is read-only
// before a form is filled.
//
//	MCPSCOPE_TMUX_TESTS=1 go test -count=1 -run '^TestAcceptance$/(small|cut|reconnect|recording)' .

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// smallSizes are the sizes every flow here runs at.
var smallSizes = [][2]int{{60, 15}, {80, 24}}

// eachSize runs flow in its own terminal at each of smallSizes.
func eachSize(t *testing.T, flow func(t *testing.T, w, h int)) {
	for _, sz := range smallSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			flow(t, sz[0], sz[1])
		})
	}
}

// header is the screen's first row.
func header(scr string) string {
	h, _, _ := strings.Cut(scr, "\n")
	return h
}

// readyWhole waits for the header to show the state whole ("● ready",
// never "● rea…").
func (s *screen) readyWhole() {
	s.t.Helper()
	s.waitFor("the header's ● ready, whole", 10*time.Second, func(scr string) bool {
		return strings.Contains(header(scr), "● ready")
	})
}

// The header keeps the connection state whole, the help bar folds to one
// row ending in "? help" at 60×15 (it took 5 of 15 rows), and ? opens on
// a legend of the tab row's short names.
func flowSmallScreenChrome(t *testing.T, a *accept) {
	eachSize(t, func(t *testing.T, w, h int) {
		s := a.start(t, w, h)
		s.readyWhole()
		rows := s.rows()
		last := rows[len(rows)-1]
		if !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
			t.Errorf("the help bar's last row lacks ? help and q quit: %q", last)
		}
		if h < 20 && strings.Contains(rows[len(rows)-2], " • ") {
			t.Errorf("at %dx%d the help bar takes more than one row:\n%s", w, h, strings.Join(rows, "\n"))
		}
		if h >= 20 && !strings.Contains(strings.Join(rows, "\n"), "r reconnect") {
			t.Errorf("at %dx%d the help bar does not show every key:\n%s", w, h, strings.Join(rows, "\n"))
		}
		s.keys("?")
		s.see("─ Help")
		scr := s.see("the tabs:")
		for _, want := range []string{"5 Prom prompts", "7 Act activity", "9 Diag diagnostics"} {
			if !strings.Contains(scr, want) {
				t.Errorf("the legend lacks %q:\n%s", want, scr)
			}
		}
		s.keys("?")
		s.gone("─ Help")
	})
}

// A log row keeps its method whole: reading a resource template with a
// long id read "→ req read demo://notes/a-… #36" and "complete resource
// demo:/… #35" at 60 columns.
func flowCutRowsKeepTheMethod(t *testing.T, a *accept) {
	eachSize(t, func(t *testing.T, w, h int) {
		s := a.start(t, w, h)
		s.ready()
		s.keys("4")
		s.see("Templates")
		s.keys("t")
		s.see("notes")
		s.keys("Enter")
		s.see("read demo://notes")
		s.typ("a-rather-long-note-identifier")
		s.keys("C-s")
		s.see("Resource not found")
		s.keys("Escape")
		s.gone("Resource not found")
		s.keys("1")
		s.see("Log · ")
		scr := s.see("ERR -32602") // the read's answer, at the log's end
		if !strings.Contains(scr, "resources/read demo://") {
			t.Errorf("the read's rows do not name resources/read:\n%s", scr)
		}
		for _, r := range strings.Split(scr, "\n") {
			for _, cut := range []string{" read demo:", " complete resource", " list #"} {
				if strings.Contains(r, cut) && !strings.Contains(r, "resources/read") && !strings.Contains(r, "completion/complete") {
					t.Errorf("a row cut its method from the front: %q", r)
				}
			}
		}
	})
}

// A prompt's message wraps instead of being cut ("How would you like me
// to proce…"), and the raw JSON's line 10 lines up with line 9.
func flowCutTextWrapsAndLinesUp(t *testing.T, a *accept) {
	eachSize(t, func(t *testing.T, w, h int) {
		s := a.start(t, w, h)
		s.ready()
		s.keys("5")
		s.see("greet")
		s.keys("Enter")
		s.see("prompts/get greet")
		s.typ("Ada Lovelace, first programmer of the Analytical Engine")
		s.keys("C-s")
		s.see("── 1 user ──")
		scr := s.capture()
		var words []string
		for _, l := range strings.Split(scr, "\n") {
			words = append(words, strings.Fields(strings.Trim(l, "│ "))...)
		}
		if !strings.Contains(strings.Join(words, " "), "Please greet Ada Lovelace, first programmer of the Analytical Engine in a casual style.") {
			t.Errorf("the prompt's message is not shown whole:\n%s", scr)
		}
		s.keys("Escape")
		s.gone("── 1 user ──")

		s.openTool("book_trip")
		s.keys("C-e")
		s.see("back to form")
		for range 9 { // line 10 on screen, with line 9 above it
			s.keys("Down")
		}
		num := regexp.MustCompile(`^│ *(\d+) `)
		scr = s.waitFor("lines 9 and 10 of the raw JSON", 5*time.Second, func(scr string) bool {
			return regexp.MustCompile(`(?m)^│ *9 `).MatchString(scr) && regexp.MustCompile(`(?m)^│ *10 `).MatchString(scr)
		})
		ends := map[int]string{}
		for _, l := range strings.Split(scr, "\n") {
			if m := num.FindStringSubmatchIndex(l); m != nil {
				n, _ := strconv.Atoi(l[m[2]:m[3]])
				ends[m[3]] = fmt.Sprint(n)
			}
		}
		if len(ends) != 1 {
			t.Errorf("the line numbers end at different columns %v:\n%s", ends, scr)
		}
	})
}

// After the server was killed and r reconnected, the status line no longer
// says what the closed client answered ("tools/call: mcp: client closed")
// under a ready header; the handshake's help bar lists esc once.
func flowReconnectClearsTheStatus(t *testing.T, a *accept) {
	eachSize(t, func(t *testing.T, w, h int) {
		s := a.start(t, w, h)
		s.ready()
		s.killServer("demo-server")
		s.waitFor("the header's ■", 10*time.Second, func(scr string) bool { return strings.Contains(header(scr), "■ ") })
		s.keys("P") // refused by the closed client
		s.keys("r")
		s.ready()
		if scr := s.capture(); strings.Contains(scr, "client closed") {
			t.Errorf("after r the screen still says what the closed client answered:\n%s", scr)
		}
		s.keys("H")
		scr := s.see("─ Handshake")
		if !strings.Contains(scr, "esc close") || strings.Contains(scr, "esc back") {
			t.Errorf("the handshake's help bar lists esc twice, or not at all:\n%s", scr)
		}
		s.keys("Escape")
		s.gone("─ Handshake")
	})
}

// An opened recording says so in the header ("■ closed" was the recorded
// connection's end), and a tool's form says read-only as it opens.
func flowRecordingSaysReadOnly(t *testing.T, a *accept) {
	eachSize(t, func(t *testing.T, w, h int) {
		s := a.start(t, w, h, "open", demoRecordingAbs(t))
		scr := s.see("recording · read-only")
		if strings.Contains(header(scr), "closed") {
			t.Errorf("the header of a recording: %q", header(scr))
		}
		s.openTool("echo")
		s.see("Call echo · read-only")
		// The status line says why once the schema is checked.
		s.see("read-only: demo-stdio.jsonl is a")
	})
}

// demoRecordingAbs is the demo's recording, by a path the binary can open
// from any directory.
func demoRecordingAbs(t *testing.T) string {
	t.Helper()
	p, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return p + "/" + demoRecording
}

// killServer kills the screen's server: the descendant of its terminal
// whose command line ends in arg (flows run side by side, each with its
// own server of the same name).
func (s *screen) killServer(arg string) {
	s.t.Helper()
	pane := strings.TrimSpace(s.tmux("display-message", "-p", "-t", s.name, "#{pane_pid}"))
	queue := []string{pane}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, child := range childrenOf(pid) {
			cmdline, _ := os.ReadFile("/proc/" + child + "/cmdline")
			if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); args[len(args)-1] == arg {
				n, _ := strconv.Atoi(child)
				p, err := os.FindProcess(n)
				if err == nil {
					err = p.Kill()
				}
				if err != nil {
					s.t.Fatalf("kill %s: %v", child, err)
				}
				return
			}
			queue = append(queue, child)
		}
	}
	s.t.Fatalf("no process %q under the terminal's %s", arg, pane)
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid string) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // ended since the glob
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after
		// its closing parenthesis.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 1 && f[1] == pid {
			out = append(out, filepath.Base(filepath.Dir(st)))
		}
	}
	return out
}
