package cli

// The acceptance suite on servers nobody here wrote, installed from npm by
// .ci/run at pinned versions into .ci/npm, whose directory
// MCPSCOPE_THIRD_PARTY names (set and a server missing, the flow fails):
// time-mcp, @cyanheads/git-mcp-server on a three-commit repository made
// here, mcp-fetch-server offline, and the official server-filesystem and
// server-everything (over stdio and Streamable HTTP). At 80×24 each pane
// is opened, a tool called through its form, a resource read and a prompt
// fetched where the server has them, and a row cut with … must be readable
// whole by a key the pane offers.
//
//	MCPSCOPE_TMUX_TESTS=1 MCPSCOPE_THIRD_PARTY=$PWD/.ci/npm go test -count=1 -run '^TestAcceptance$/third' .

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// thirdParty is one server and what the flow does with it.
type thirdParty struct {
	name string
	// args start it (after mcpscope's own flags); for an HTTP server,
	// serve starts it and args are its URL.
	args  []string
	serve func(t *testing.T) (url string)
	// tool is called through its form with fields typed as given, and
	// result is what the result view must show.
	tool   string
	fields [][2]string
	result string
	// readWant is what reading the first resource shows (its view's
	// title); listFails what the Resources pane shows instead when the
	// server fails its list; promptWant what getting prompt shows (a
	// failure is shown as one, in the same view).
	readWant, listFails string
	prompt, promptWant  string
}

func thirdPartyServers(t *testing.T, dir string) []thirdParty {
	mod := func(pkg, file string) string {
		p := filepath.Join(dir, "node_modules", pkg, file)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("MCPSCOPE_THIRD_PARTY is set but %s is not installed there (.ci/run installs it): %v", pkg, err)
		}
		return p
	}
	everything := mod("@modelcontextprotocol/server-everything", "dist/index.js")
	repo := threeCommitRepo(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("kept by the acceptance suite\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return []thirdParty{
		{name: "time-mcp", args: []string{"--", "node", mod("time-mcp", "dist/index.js")},
			tool: "current_time", result: "Result · current_time"},
		{name: "git-mcp-server", args: []string{"-e", "GIT_BASE_DIR=" + repo, "-e", "HOME=" + home, "-e", "LOGS_DIR=" + home,
			"--", "node", mod("@cyanheads/git-mcp-server", "dist/index.js")},
			tool: "git_log", fields: [][2]string{{"path", repo}}, result: "commit 3",
			readWant: "resources/read git://working-directory",
			// git-mcp-server 2.15.3 refuses a prompts/get without an
			// arguments member ("expected object, received undefined"),
			// which the spec allows: the failure is shown in the result view.
			prompt: "git_wrapup", promptWant: "prompts/get git_wrapup failed"},
		{name: "mcp-fetch-server", args: []string{"--", "node", mod("mcp-fetch-server", "dist/index.js")},
			// Offline: a closed loopback port, so the tool answers with an error.
			tool: "fetch_txt", fields: [][2]string{{"url", "http://127.0.0.1:9/"}}, result: "Result · fetch_txt",
			listFails: "resources/list failed"},
		{name: "server-filesystem", args: []string{"--", "node", mod("@modelcontextprotocol/server-filesystem", "dist/index.js"), root},
			tool: "read_text_file", fields: [][2]string{{"path", filepath.Join(root, "notes.txt")}}, result: "kept by the acceptance suite"},
		{name: "server-everything stdio", args: []string{"--", "node", everything, "stdio"},
			tool: "echo", fields: [][2]string{{"message", "from the acceptance suite"}}, result: "Echo: from the acceptance suite",
			readWant: "resources/read demo://",
			prompt:   "simple-prompt", promptWant: "This is a simple prompt"},
		{name: "server-everything http", serve: func(t *testing.T) string { return serveEverything(t, everything) },
			tool: "echo", fields: [][2]string{{"message", "over HTTP"}}, result: "Echo: over HTTP",
			readWant: "resources/read demo://",
			prompt:   "simple-prompt", promptWant: "This is a simple prompt"},
	}
}

// threeCommitRepo is a git repository with three commits, made here.
func threeCommitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Acceptance", "-c", "user.email=acceptance@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := 1; i <= 3; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(fmt.Sprintln(i)), 0o600); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
	}
	return dir
}

// serveEverything runs server-everything over Streamable HTTP on a free
// loopback port until the test ends.
func serveEverything(t *testing.T, index string) string {
	t.Helper()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, "node", index, "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+port)
	if err := srv.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = srv.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := exec.Command("node", "-e", fmt.Sprintf("require('net').connect(%s,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))", port)).CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s: %s", port, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

func flowThirdPartyServers(t *testing.T, a *accept) {
	dir := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if dir == "" {
		t.Skip("set MCPSCOPE_THIRD_PARTY to the npm prefix .ci/run installs the third-party servers into")
	}
	for _, srv := range thirdPartyServers(t, dir) {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			args := srv.args
			if srv.serve != nil {
				args = []string{srv.serve(t)}
			}
			s := a.start(t, 80, 24, args...)
			s.waitFor("the header's ● ready", 30*time.Second, func(scr string) bool {
				header, _, _ := strings.Cut(scr, "\n")
				return strings.Contains(header, "● rea")
			})
			for _, p := range []struct{ key, title string }{
				{"1", "Log · "}, {"2", "Capabilities"}, {"3", "Tools · "}, {"4", "Resources ("}, {"5", "Prompts ("},
				{"6", "Server log ("}, {"7", "Activity ("}, {"8", "Roots"}, {"9", "Diagnostics"},
			} {
				s.keys(p.key)
				s.see("╭─ " + p.title)
				s.readableWhole(p.title)
			}

			s.openToolNamed(srv.tool)
			for _, f := range srv.fields {
				s.tabTo(f[0])
				s.keys("C-u") // a default value goes first
				s.typ(f[1])
			}
			s.keys("C-s")
			s.waitFor("the result of "+srv.tool, 30*time.Second, func(scr string) bool {
				return strings.Contains(scr, "Result · "+srv.tool) && strings.Contains(scr, srv.result)
			})
			s.readableWhole("Result · " + srv.tool)
			s.keys("Escape")
			s.gone("Result · " + srv.tool)

			if srv.listFails != "" {
				s.keys("4")
				s.see(srv.listFails)
				s.readableWhole("Resources (")
			}
			if srv.readWant != "" {
				s.keys("4")
				s.see("╭─ Resources (")
				s.keys("Enter")
				s.see(srv.readWant)
				s.readableWhole(srv.readWant)
				s.keys("Escape")
				s.see("╭─ Resources (")
			}
			if srv.prompt != "" {
				s.keys("5")
				s.see("╭─ Prompts (")
				s.keys("Enter")
				s.see("prompts/get " + srv.prompt)
				s.keys("C-s")
				s.see(srv.promptWant)
				s.readableWhole(srv.promptWant)
				s.keys("Escape")
				s.see("╭─ Prompts (")
			}
		})
	}
}

// readableWhole checks the pane on screen: a row it cuts with … must be
// readable whole by a key it offers. W must leave no … in the pane; where
// the pane cuts list rows and shows the selected item whole beside them
// (the tools list and its details), the help bar must offer the details.
func (s *screen) readableWhole(what string) {
	s.t.Helper()
	scr := s.capture()
	cut := cutRows(scr)
	if len(cut) == 0 {
		return
	}
	help := helpBar(scr)
	switch {
	case strings.Contains(what, "Tools · ") && strings.Contains(help, "d details") && !anyCutRight(cut):
		return // the list's rows; the selected tool is whole in its details
	case !strings.Contains(help, "W wrap"):
		s.t.Errorf("%s: rows cut with … and no W wrap or details offered:\n%s", what, scr)
		return
	}
	s.keys("W")
	// The title says "wrap" once W is applied (the Tools pane's is its
	// details' and says nothing: there the rows must change).
	after := s.waitFor(what+" after W", 5*time.Second, func(scr string) bool {
		return strings.Contains(boxTitle(scr), "wrap") || strings.Contains(what, "Tools · ") && !sameRows(cutRows(scr), cut)
	})
	if left := cutRows(after); len(left) > 0 && !(strings.Contains(what, "Tools · ") && !anyCutRight(left)) {
		s.t.Errorf("%s: W left rows cut with …:\n  %s\n%s", what, strings.Join(left, "\n  "), after)
	}
	s.keys("W")
	s.waitFor(what+" after W again", 5*time.Second, func(scr string) bool {
		return !strings.Contains(boxTitle(scr), "wrap") || strings.Contains(what, "Tools · ")
	})
}

// cutRows are the rows inside the pane's box that end in … (or hold …
// before the right border): text cut at the edge. A "…" the pane writes
// itself ("waiting for tools/list…") is not a cut.
func cutRows(scr string) []string {
	var out []string
	rows := strings.Split(scr, "\n")
	in := false
	for _, r := range rows {
		switch {
		case strings.HasPrefix(r, "╭"):
			in = true
			continue
		case strings.HasPrefix(r, "╰"):
			in = false
		}
		if !in || !strings.Contains(r, "…") {
			continue
		}
		if strings.Contains(r, "waiting for") || strings.Contains(r, "… more on the server") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// anyCutRight says whether a cut row is cut in the right-hand column of a
// split pane (the tools details), not in the list beside it.
func anyCutRight(rows []string) bool {
	for _, r := range rows {
		if i := strings.LastIndex(r, "│"); i > 0 {
			inner := r[:i]
			if j := strings.LastIndex(inner, "│"); j > 0 && strings.Contains(inner[j:], "…") {
				return true
			}
		}
	}
	return false
}

func sameRows(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// helpBar is the help rows under the status line (the last three rows).
func helpBar(scr string) string {
	rows := strings.Split(scr, "\n")
	return strings.Join(rows[max(len(rows)-3, 0):], "\n")
}

// boxTitle is the first box's top row.
func boxTitle(scr string) string {
	for _, r := range strings.Split(scr, "\n") {
		if strings.HasPrefix(r, "╭") {
			return r
		}
	}
	return ""
}

// openToolNamed opens a tool's form by the tools filter when other tools
// match the filter too: the cursor is moved onto the tool of that name.
func (s *screen) openToolNamed(name string) {
	s.t.Helper()
	s.keys("3")
	s.see("Tools · ")
	s.keys("/")
	s.see("/ ")
	s.typ(name)
	s.keys("Enter")
	s.waitFor("the filtered list", 5*time.Second, func(scr string) bool {
		return strings.Contains(scr, "│/ "+name) && strings.Contains(scr, " of ") && strings.Contains(helpBar(scr), "enter call")
	})
	for range 30 {
		if strings.Contains(s.capture(), "▸ "+name+" ") {
			s.keys("Enter")
			s.see("Call " + name)
			return
		}
		before := s.capture()
		s.keys("j")
		s.waitFor("the cursor to move", 5*time.Second, func(scr string) bool { return scr != before })
	}
	s.t.Fatalf("the tool %s is not in the filtered list:\n%s", name, s.capture())
}
