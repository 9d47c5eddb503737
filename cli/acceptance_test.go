package cli

// The acceptance suite: the real mcpscope binary in a
// real terminal (tmux), driven the way a person uses it — keys typed,
// clicks sent as the terminal would send them — and judged by what the
// terminal shows. It needs tmux and runs when MCPSCOPE_TMUX_TESTS=1 (as
// .ci/run sets it, which also installs tmux); set and tmux missing, it
// fails. MCPSCOPE_BINARY names the binary to drive; without it the test
// builds one.
//
//	MCPSCOPE_TMUX_TESTS=1 go test -count=1 -run '^TestAcceptance$' .

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// TestAcceptance runs every flow in parallel, each in its own terminal.
func TestAcceptance(t *testing.T) {
	a := acceptance(t)
	started := time.Now()
	t.Cleanup(func() { t.Logf("acceptance suite: %s", time.Since(started).Round(100*time.Millisecond)) })
	for _, f := range []struct {
		name string
		run  func(*testing.T, *accept)
	}{
		{"book_trip with Tab only", flowBookTripWithTabOnly},
		{"draft survives esc", flowDraftSurvivesEsc},
		{"click outside sampling keeps the request", flowClickOutsideSamplingKeepsTheRequest},
		{"1000 server log messages", flowThousandLogMessages},
		{"HTTP server killed", flowHTTPServerKilled},
		{"modals keep the chrome", flowModalsKeepTheChrome},
		{"third-party servers", flowThirdPartyServers},
		{"code is highlighted", flowCodeIsHighlighted},
		{"tool costs and client views", flowToolCostsAndClientViews},
		{"fetch headers as key/value rows", flowFetchHeaders},
		{"time enum filter", flowTimeEnumFilter},
		{"memory: typing starts items", flowMemoryTypingStartsItems},
		{"paste keeps lines", flowPasteKeepsLines},
		{"saved call passes, then fails on a changed server", flowSavedCall},
		{"hot reload", flowHotReload},
		{"copy in tmux goes to the system clipboard", flowCopyInTmux},
		{"S suggests a name that typing replaces", flowSaveNameSuggestion},
		{"small screens: header, help bar, tab legend", flowSmallScreenChrome},
		{"cut rows keep the method", flowCutRowsKeepTheMethod},
		{"cut text wraps and lines up", flowCutTextWrapsAndLinesUp},
		{"reconnect clears the status", flowReconnectClearsTheStatus},
		{"recording says read-only", flowRecordingSaysReadOnly},
		{"preview a tool's view", flowAppPreview},
		{"tapped call: a view previewed from the capture", flowTappedAppPreview},
		{"an image is previewed, scrolls and goes with esc", flowImagePreview},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			f.run(t, a)
		})
	}
}

// accept is one tmux server for the whole suite: its own socket, no user
// configuration, one session per flow.
type accept struct {
	bin  string
	sock string
}

var (
	acceptOnce sync.Once
	acceptEnv  *accept
	acceptErr  error
)

func acceptance(t *testing.T) *accept {
	t.Helper()
	if os.Getenv("MCPSCOPE_TMUX_TESTS") == "" {
		t.Skip("set MCPSCOPE_TMUX_TESTS=1 (as .ci/run does) to drive the real binary in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("MCPSCOPE_TMUX_TESTS is set but tmux is missing: %v", err)
	}
	acceptOnce.Do(func() {
		// A socket of its own path: tmux leaves a -L socket behind when
		// its server exits, and stopAcceptance removes this one.
		a := &accept{sock: filepath.Join(os.TempDir(), fmt.Sprintf("mcpscope-accept-%d.sock", os.Getpid()))}
		if a.bin, acceptErr = realBinary(); acceptErr != nil {
			return
		}
		// One server for every session, started before the flows run in
		// parallel (sessions created at once on a server that is still
		// starting fail), held up by a session of its own.
		if out, err := exec.Command("tmux", "-S", a.sock, "-f", "/dev/null", "new-session", "-d", "-s", "hold", "cat").CombinedOutput(); err != nil {
			acceptErr = fmt.Errorf("tmux: %v\n%s", err, out)
			return
		}
		acceptEnv = a
	})
	if acceptErr != nil {
		t.Fatal(acceptErr)
	}
	return acceptEnv
}

// stopAcceptance stops the suite's tmux server, if a test started it,
// and removes its socket (TestMain, after every test).
func stopAcceptance() {
	if acceptEnv == nil {
		return
	}
	_ = exec.Command("tmux", "-S", acceptEnv.sock, "kill-server").Run()
	_ = os.Remove(acceptEnv.sock)
}

// screen is one tmux session running mcpscope at a fixed size.
type screen struct {
	t    *testing.T
	a    *accept
	name string
	w, h int
}

var sessionSeq struct {
	sync.Mutex
	n int
}

// start runs the binary with args in a new w×h terminal.
func (a *accept) start(t *testing.T, w, h int, args ...string) *screen {
	t.Helper()
	return a.startWith(t, w, h, nil, args...)
}

// startWith is start with more environment variables (KEY=VALUE).
func (a *accept) startWith(t *testing.T, w, h int, env []string, args ...string) *screen {
	t.Helper()
	sessionSeq.Lock()
	sessionSeq.n++
	name := fmt.Sprintf("s%d", sessionSeq.n)
	sessionSeq.Unlock()
	s := &screen{t: t, a: a, name: name, w: w, h: h}
	cmd := strings.Join(append([]string{shellQuote(a.bin)}, quoteAll(args)...), " ")
	// remain-on-exit keeps what the program printed if it ends early.
	s.tmux("new-session", "-d", "-s", name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		strings.Join(append([]string{"env", "TERM=xterm-256color", "COLORTERM=truecolor"}, quoteAll(env)...), " ")+" "+cmd)
	s.tmux("set-option", "-t", name, "remain-on-exit", "on")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last screen of %s (%dx%d):\n%s", name, w, h, s.capture())
		}
		_ = exec.Command("tmux", "-S", a.sock, "kill-session", "-t", name).Run()
	})
	return s
}

func (s *screen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.a.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// capture is what the terminal shows, one string per row.
func (s *screen) capture() string {
	out, err := exec.Command("tmux", "-S", s.a.sock, "capture-pane", "-p", "-t", s.name).Output()
	if err != nil {
		return fmt.Sprintf("(capture failed: %v)", err)
	}
	return strings.TrimRight(string(out), "\n")
}

func (s *screen) rows() []string {
	rows := strings.Split(s.capture(), "\n")
	for len(rows) < s.h {
		rows = append(rows, "")
	}
	return rows
}

// keys presses named keys (tmux names: Enter, Tab, BTab, Escape, C-s, ...).
func (s *screen) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// typ types text as it is.
func (s *screen) typ(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.name, "-l", text)
}

// click sends a left click at the 0-based cell x, y as the terminal sends
// it with the mouse mode mcpscope asks for (SGR: press, then release).
func (s *screen) click(x, y int) {
	s.t.Helper()
	s.typ(fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", x+1, y+1, x+1, y+1))
}

// waitFor polls the screen until cond holds, or fails after limit.
func (s *screen) waitFor(what string, limit time.Duration, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		scr := s.capture()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: not on screen within %s:\n%s", what, limit, scr)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// see waits for text to be on screen.
// allTools is the Tools pane's title with no filter: "Tools · N ·",
// whatever number of tools the demo has.
var allTools = regexp.MustCompile(`─ Tools · \d+ ·`)

func (s *screen) see(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), 10*time.Second, func(scr string) bool { return strings.Contains(scr, text) })
}

// ready waits for the header to say the handshake is done (cut to "● rea…"
// at 60 columns).
func (s *screen) ready() {
	s.t.Helper()
	s.waitFor("the header's ● ready", 10*time.Second, func(scr string) bool {
		header, _, _ := strings.Cut(scr, "\n")
		return strings.Contains(header, "● rea")
	})
}

// gone waits for text to leave the screen.
func (s *screen) gone(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q gone", text), 10*time.Second, func(scr string) bool { return !strings.Contains(scr, text) })
}

// cursorRow is the row of the form's field cursor (›), or "".
func cursorRow(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(l, "│›") {
			return l
		}
	}
	return ""
}

// cursorField is the label of the field under the form's cursor.
func cursorField(scr string) string {
	if m := regexp.MustCompile(`^│›\s+(\S+)`).FindStringSubmatch(cursorRow(scr)); m != nil {
		return strings.TrimSuffix(m[1], "*")
	}
	return ""
}

// tabTo presses Tab (and nothing else) until the form's cursor is on the
// field called label, one Tab at a time, each seen to move the cursor.
func (s *screen) tabTo(label string) {
	s.t.Helper()
	for range 30 {
		before := cursorField(s.capture())
		if before == label {
			return
		}
		s.keys("Tab")
		s.waitFor("the cursor to leave "+before, 5*time.Second, func(scr string) bool { return cursorField(scr) != before })
	}
	s.t.Fatalf("Tab never reached the field %q:\n%s", label, s.capture())
}

// openTool selects a tool by the tools pane's filter and opens its form.
func (s *screen) openTool(name string) {
	s.t.Helper()
	s.keys("3")
	s.see("Tools · ")
	s.keys("/")
	s.see("/ ")
	s.typ(name)
	s.keys("Enter")
	s.waitFor("the filtered list", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "Tools · 1 of") })
	s.keys("Enter")
	s.see("Call " + name)
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}

// boxChars are the modal and pane borders.
const boxChars = "╭╮╰╯│─"

// requireChromeIntact fails the test when chromeProblem finds one.
func requireChromeIntact(t *testing.T, what string, rows []string, w int, tabbed bool) {
	t.Helper()
	if p := chromeProblem(rows, w, tabbed); p != "" {
		t.Fatalf("%s at width %d: %s\n%s", what, w, p, strings.Join(rows, "\n"))
	}
}

// chromeProblem checks that an overlay stays in the body: the header (and
// the tab row when tabbed) on top, the status line and the help bar at the
// bottom carry no border, the box's rows are whole from edge to edge
// (nothing of the screen behind at its sides), and its bottom edge is
// above the status line and the help bar. It says what is wrong, or "".
func chromeProblem(rows []string, w int, tabbed bool) string {
	if len(rows) < 4 {
		return "too few rows"
	}
	if !strings.HasPrefix(rows[0], " mcpscope ") || strings.ContainsAny(rows[0], boxChars) {
		return fmt.Sprintf("the header row is not the header: %q", rows[0])
	}
	top := 1
	if tabbed {
		// " 1 Log " padded, or "1 Log" where the row is tight (60 columns).
		if !strings.HasPrefix(strings.TrimPrefix(rows[1], " "), "1 Log") || strings.ContainsAny(rows[1], boxChars) {
			return fmt.Sprintf("the tab row is not the tab row: %q", rows[1])
		}
		top = 2
	}
	first, last := -1, -1
	for i, r := range rows {
		if strings.HasPrefix(r, "╭") && first < 0 {
			first = i
		}
		if strings.HasPrefix(r, "╰") {
			last = i
		}
	}
	if first < top || last <= first {
		return fmt.Sprintf("no overlay box below the top rows (top edge at row %d, bottom at %d)", first, last)
	}
	if !strings.HasSuffix(rows[first], "╮") || !strings.HasSuffix(rows[last], "╯") ||
		strings.Count(rows[first], "╭") != 1 || strings.Count(rows[last], "╰") != 1 {
		return "the box's corners are not at the screen's edges, or two boxes overlap"
	}
	for i := first; i <= last; i++ {
		if got := ansi.StringWidth(rows[i]); got != w {
			return fmt.Sprintf("row %d of the box is %d wide, not the screen's %d: %q", i, got, w, rows[i])
		}
	}
	for i := first + 1; i < last; i++ {
		if !strings.HasPrefix(rows[i], "│") || !strings.HasSuffix(rows[i], "│") {
			return fmt.Sprintf("row %d is not inside the box from edge to edge: %q", i, rows[i])
		}
	}
	bottom := rows[last+1:]
	if len(bottom) < 2 {
		return fmt.Sprintf("%d rows under the box, want the status line and the help bar", len(bottom))
	}
	for _, r := range bottom {
		if strings.ContainsAny(r, boxChars) {
			return fmt.Sprintf("a border is drawn over the status line or the help bar: %q", r)
		}
	}
	if !strings.Contains(strings.Join(bottom[1:], " "), " • ") {
		return "the help bar is not under the status line"
	}
	return ""
}

// The acceptance suite's screen check finds what a person once saw: a modal's
// border over the tab row (╭─╭─ Call echo ─╮─╮), the screen behind at the
// box's edges (│M│), a border over the status line. It runs without tmux.
func TestChromeProblemFindsOverlaps(t *testing.T) {
	good := []string{
		" mcpscope demo 1.0.0·legacy",
		" 1 Log   2 Caps   3 Tools",
		"╭─ Call echo ─────╮",
		"│› message*  hi   │",
		"╰─────────────────╯",
		" legacy era",
		"tab next field • ctrl+s send",
	}
	w := ansi.StringWidth(good[2])
	if p := chromeProblem(good, w, true); p != "" {
		t.Fatalf("a good screen: %s", p)
	}
	broken := func(i int, row string) []string {
		rows := append([]string(nil), good...)
		rows[i] = row
		return rows
	}
	for name, rows := range map[string][]string{
		"border over the tab row": broken(1, "╭─╭─ Call echo ─╮─╮"),
		"border over the header":  broken(0, " mcpscope ╭─ Call echo ─╮"),
		"leak at the edges":       append(append(good[:2:2], "│M╭─ Call echo ─╮+│", "│M│› message*  │+│", "│M╰─────────────╯+│"), good[5:]...),
		"leak on the right":       broken(3, "│› message*  hi  │+"),
		"narrower box":            broken(3, "│› message*  hi │"),
		"two boxes":               broken(2, "╭─╭─ Call echo ──╮"),
		"border over the status":  append(good[:6:6], "╰──────╯"),
		"no help bar":             good[:6],
	} {
		if chromeProblem(rows, w, true) == "" {
			t.Errorf("%s: not found in\n%s", name, strings.Join(rows, "\n"))
		}
	}
}

// Fill book_trip using only Tab to move between fields, and send it.
func flowBookTripWithTabOnly(t *testing.T, a *accept) {
	s := a.start(t, 80, 24)
	s.ready()
	s.openTool("book_trip")
	// The cursor starts on the first field; typing edits it at once.
	s.typ("Ada Lovelace")
	s.see("name*     Ada Lovelace")
	s.tabTo("from")
	s.typ("Paris")
	s.see("from*   Paris")
	s.tabTo("to")
	s.typ("Rome")
	s.see("to*     Rome")
	s.tabTo("date")
	s.typ("2027-05-01")
	s.see("date*   2027-05-01")
	s.tabTo("number")
	s.typ("4111111111111111")
	s.see("✓ valid")
	s.keys("C-s")
	scr := s.see("Result · book_trip")
	for _, want := range []string{"Booked 1 leg for Ada Lovelace.", "Paris -> Rome on 2027-05-01", "Paid by card ending 1111."} {
		if !strings.Contains(scr, want) {
			t.Errorf("the result lacks %q:\n%s", want, scr)
		}
	}
}

// Esc on a form with changes asks; "keep draft" keeps it, and reopening
// the tool shows the draft as it was left.
func flowDraftSurvivesEsc(t *testing.T, a *accept) {
	s := a.start(t, 60, 15)
	s.ready()
	s.openTool("echo")
	s.typ("half a thought")
	s.see("half a thought")
	s.keys("Escape")
	s.see("keep draft")
	s.keys("k")
	scr := s.gone("Call echo")
	if !strings.Contains(scr, "✎ draft") {
		t.Errorf("the list does not mark echo as having a draft:\n%s", scr)
	}
	s.keys("Enter")
	s.see("Call echo")
	s.see("message*  half a thought")
	// The draft is live: typing goes on where it stopped.
	s.typ(", finished")
	s.see("half a thought, finished")
}

// A click outside a sampling modal leaves the request pending (the modal
// stays, the call keeps running); the answer then reaches the server.
func flowClickOutsideSamplingKeepsTheRequest(t *testing.T, a *accept) {
	s := a.start(t, 120, 35)
	s.ready()
	s.openTool("ask_model")
	s.typ("Say hello")
	s.keys("C-s")
	s.see("sampling/createMessage · server request")
	s.see("running")
	s.click(5, 0)         // the header
	s.click(s.w/2, s.h-1) // the help bar
	// Input is read in order: once the reply typed after the clicks shows,
	// the clicks have been handled.
	s.typ("Hello from the acceptance suite")
	scr := s.see("Hello from the acceptance suite")
	if !strings.Contains(scr, "sampling/createMessage · server request") || !strings.Contains(scr, "running") {
		t.Fatalf("after clicks outside it the sampling request is no longer pending:\n%s", scr)
	}
	s.keys("C-s")
	scr = s.see("Result · ask_model")
	if !strings.Contains(scr, "Hello from the acceptance suite") {
		t.Fatalf("the server did not get the answer:\n%s", scr)
	}
	// The clicks above were delivered: the same click closes a modal that
	// only shows something.
	s.click(5, 0)
	s.gone("Result · ask_model")
}

// 1,000 server log messages: scroll to the first and open it.
func flowThousandLogMessages(t *testing.T, a *accept) {
	s := a.start(t, 80, 24)
	s.ready()
	s.keys("6")
	s.see("Server log (0)")
	s.keys("l")
	s.see("minimum level")
	s.keys("Enter") // info
	s.see("level info")
	s.openTool("log_burst")
	s.keys("BSpace")
	s.typ("1000")
	s.see("count    1000")
	s.keys("C-s")
	s.see("Result · log_burst")
	s.keys("Escape")
	s.gone("Result · log_burst")
	s.keys("6")
	s.see("Server log (1000)")
	s.see("log message 1000 of 1000")
	s.keys("g")
	scr := s.see("log message 1 of 1000")
	if !strings.Contains(cursorLine(scr), "log message 1 of 1000") {
		t.Fatalf("g did not put the cursor on the first message:\n%s", scr)
	}
	s.keys("Enter")
	scr = s.see("Frame #")
	for _, want := range []string{`"method": "notifications/message"`, `"message": "log message 1 of 1000"`} {
		if !strings.Contains(scr, want) {
			t.Errorf("the opened frame lacks %s:\n%s", want, scr)
		}
	}
}

// cursorLine is the list row under the cursor (▸).
func cursorLine(scr string) string {
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(l, "│▸") {
			return l
		}
	}
	return ""
}

// Kill the HTTP server: the header shows the loss within 5 s.
func flowHTTPServerKilled(t *testing.T, a *accept) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, a.bin, "demo-server", "--http", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Wait() }()
	url := ""
	lines := bufio.NewScanner(stderr)
	for url == "" && lines.Scan() {
		if m := regexp.MustCompile(`http://\S+/mcp\b`).FindString(lines.Text()); m != "" {
			url = m
		}
	}
	if url == "" {
		t.Fatal("the demo server printed no /mcp URL")
	}
	go func() { // keep draining its stderr
		for lines.Scan() {
		}
	}()
	s := a.start(t, 120, 35, url)
	s.ready()
	if err := srv.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	scr := s.waitFor("the header to show the lost server", 8*time.Second, func(scr string) bool {
		header, _, _ := strings.Cut(scr, "\n")
		return !strings.Contains(header, "● ready") && strings.Contains(header, "■ lost")
	})
	if took := time.Since(killed); took > 5*time.Second {
		t.Fatalf("the header showed the loss %s after the kill, want within 5 s:\n%s", took.Round(time.Millisecond), scr)
	} else {
		t.Logf("header shows the loss %s after the kill", took.Round(time.Millisecond))
	}
}

// Every modal at 80×24 and 60×15: no border over the header, the tab row,
// the status line or the help bar, and nothing of the screen behind at the
// box's edges.
func flowModalsKeepTheChrome(t *testing.T, a *accept) {
	for _, sz := range [][2]int{{80, 24}, {60, 15}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			s := a.start(t, sz[0], sz[1])
			s.ready()
			checked := 0
			check := func(what string) {
				t.Helper()
				requireChromeIntact(t, what, s.rows(), s.w, true)
				checked++
			}
			defer func() {
				if !t.Failed() && checked != 8 {
					t.Errorf("%d modals checked, want 8", checked)
				}
			}()
			s.keys("?")
			s.see("╭─ Help")
			check("help")
			s.keys("?")
			s.gone("╭─ Help")

			s.keys("H")
			s.see("─ Handshake")
			check("handshake")
			s.keys("Escape")
			s.gone("─ Handshake")

			s.keys("1")
			s.see("Log · ")
			s.keys("g", "j", "j", "Enter") // the initialize request
			s.see("─ Frame #")
			check("frame detail")
			s.keys("Escape")
			s.gone("─ Frame #")

			s.openTool("echo")
			check("tool form")
			s.typ("hi")
			s.keys("C-s")
			s.see("─ Result · echo")
			check("result")
			s.keys("Escape")
			s.gone("─ Result · echo")

			s.keys("4")
			s.see("Resources (")
			s.keys("Enter") // reads the first resource
			s.see("─ resources/read ")
			check("resource content")
			s.keys("Escape")
			s.see("Resources (")

			s.keys("3")
			s.see("─ Tools · 1 of ") // then "─" or "· details …"
			s.keys("Escape")         // clears the tools filter
			s.waitFor("the tools filter cleared", 10*time.Second, func(scr string) bool {
				return allTools.MatchString(scr)
			})
			s.openTool("ask_user")
			s.keys("C-s")
			s.see("elicitation/create")
			check("elicitation")
			s.keys("C-d")
			s.see("─ Result · ask_user")
			s.keys("Escape")
			s.gone("─ Result · ask_user")

			s.keys("3")
			s.see("─ Tools · 1 of ") // then "─" or "· details …"
			s.keys("Escape")         // clears the tools filter
			s.waitFor("the tools filter cleared", 10*time.Second, func(scr string) bool {
				return allTools.MatchString(scr)
			})
			s.openTool("ask_model")
			s.typ("hi")
			s.keys("C-s")
			s.see("sampling/createMessage")
			check("sampling")
			s.keys("C-d")
			s.see("─ Result · ask_model")
		})
	}
}

// A tool called through its form, the call saved with its answer as its
// snapshot (S, tab, enter); after a restart the saved call is under its
// tool and one key runs it and sees it pass; against a build whose add
// answers differently it fails and says where.
func flowSavedCall(t *testing.T, a *accept) {
	file := filepath.Join(t.TempDir(), "mcpscope.calls.json")
	s := a.start(t, 80, 24, "--calls", file)
	s.ready()
	s.keys("3")
	s.see("Tools · ")
	s.keys("/")
	s.see("/ ")
	s.typ("add")
	s.keys("Enter")
	s.waitFor("add first in the filtered list", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "▸ add ") })
	s.keys("Enter")
	s.see("Call add")
	s.typ("1")
	s.tabTo("b")
	s.typ("2")
	s.see("✓ valid")
	s.keys("C-s")
	s.see("Result · add")
	s.keys("S")
	s.see("name  add a=1 b=2")
	s.keys("Tab")
	s.see("[x] keep this answer as its snapshot")
	s.keys("Enter")
	s.see(`saved "add a=1 b=2"`)
	if text, err := os.ReadFile(file); err != nil || !strings.Contains(string(text), `"snapshot"`) {
		t.Fatalf("the calls file: %v\n%s", err, text)
	}
	s.keys("Escape")
	s.gone("Result · add")
	s.keys("q")

	run := func(s *screen) string {
		s.ready()
		s.keys("3")
		s.see("↳ · add a=1 b=2")
		s.keys("j")
		s.waitFor("the cursor on the saved call", 5*time.Second, func(scr string) bool { return strings.Contains(scr, "▸ ↳ · add a=1 b=2") })
		s.keys("t")
		return s.waitFor("the run's outcome", 10*time.Second, func(scr string) bool {
			return strings.Contains(scr, "↳ ✓ add a=1 b=2") || strings.Contains(scr, "↳ ✗ add a=1 b=2")
		})
	}
	if scr := run(a.start(t, 80, 24, "--calls", file)); !strings.Contains(scr, "↳ ✓ add a=1 b=2") || !strings.Contains(scr, "passed") {
		t.Fatalf("the saved call did not pass:\n%s", scr)
	}
	changed := a.start(t, 80, 24, "--calls", file, "-e", "MCPSCOPE_DEMO_ADD_OFFSET=1")
	if scr := run(changed); !strings.Contains(scr, "↳ ✗ add a=1 b=2") {
		t.Fatalf("the saved call did not fail on the changed server:\n%s", scr)
	}
	changed.see("snapshot /result/structuredContent/sum")
	changed.keys("C")
	changed.see("Saved calls · 1 · 0 passed, 1 failed")
}
