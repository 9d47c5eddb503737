package cli

// The schema form on servers nobody here wrote, driven in tmux like the
// rest of the acceptance suite. The servers come from npm: .ci/run
// installs them into the prefix MCPSCOPE_THIRD_PARTY names (set and a
// server missing, a flow fails; unset, the flows that need them skip).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmServer is the script of an npm server installed under the prefix
// MCPSCOPE_THIRD_PARTY names.
func npmServer(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if dir == "" {
		t.Skip("set MCPSCOPE_THIRD_PARTY to the npm prefix .ci/run installs the third-party servers into")
	}
	path := filepath.Join(dir, "node_modules", rel)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("MCPSCOPE_THIRD_PARTY is set but %s is not installed there (.ci/run installs it): %v", rel, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("MCPSCOPE_THIRD_PARTY is set but node is missing: %v", err)
	}
	return path
}

// nodeServer is the command line of a node server with a throwaway HOME.
func nodeServer(t *testing.T, script string, args ...string) []string {
	return append([]string{"--", "env", "HOME=" + t.TempDir(), "node", script}, args...)
}

// paste pastes text as a terminal does with bracketed paste: tmux's
// paste-buffer -p, which also sends each line break as CR.
func (s *screen) paste(text string) {
	s.t.Helper()
	buf := fmt.Sprintf("p%s", s.name)
	load := exec.Command("tmux", "-S", s.a.sock, "load-buffer", "-b", buf, "-")
	load.Stdin = strings.NewReader(text)
	if out, err := load.CombinedOutput(); err != nil {
		s.t.Fatalf("tmux load-buffer: %v\n%s", err, out)
	}
	s.tmux("paste-buffer", "-p", "-d", "-b", buf, "-t", s.name)
}

// mcp-fetch-server's headers ({"type":"object"}) take key/value rows,
// typed straight onto the empty object; a number pasted with its line
// break goes out as a number, in its plain form.
func flowFetchHeaders(t *testing.T, a *accept) {
	script := npmServer(t, "mcp-fetch-server/dist/index.js")
	s := a.start(t, 120, 35, nodeServer(t, script)...)
	s.ready()
	s.openTool("fetch_html")
	s.typ("http://127.0.0.1:9/") // the server refuses private addresses: nothing leaves the machine
	s.tabTo("headers")
	s.see("typing starts a key")
	s.typ("Accept")
	s.waitFor("the key typed", 5*time.Second, func(scr string) bool { return strings.Contains(cursorRow(scr), "Accept") })
	s.keys("Tab")
	s.typ("text/html")
	s.see("value     text/html")
	s.see("+ add key (alt+a)")
	s.tabTo("max_length")
	s.paste("1e3\n")
	s.see("pasted without the line break at its end")
	s.see("sent as 1000")
	s.keys("C-s")
	scr := s.see("Result · fetch_html")
	if want := `arguments {"url":"http://127.0.0.1:9/","headers":{"Accept":"text/html"},"max_length":1000}`; !strings.Contains(scr, want) {
		t.Errorf("the call did not send %s:\n%s", want, scr)
	}
}

// time-mcp's current_time.format: "h:mm" chooses "h:mm A", not the
// default that also holds "H:mm"; a filter that matched nothing does not
// come back with the kept draft.
func flowTimeEnumFilter(t *testing.T, a *accept) {
	script := npmServer(t, "time-mcp/dist/index.js")
	s := a.start(t, 60, 15, nodeServer(t, script)...)
	s.ready()
	s.openTool("current_time")
	s.see("‹ YYYY-MM-DD HH:mm:ss ›")
	s.typ("h:mm")
	s.see("‹ h:mm A ›")
	s.typ("zzz")
	s.see("no match")
	s.keys("Escape")
	s.see("keep draft")
	s.keys("k")
	s.gone("Call current_time")
	s.keys("Enter")
	s.see("Call current_time")
	scr := s.see("‹ h:mm A ›")
	if strings.Contains(scr, "zzz") || strings.Contains(scr, "no match") {
		t.Errorf("the filter came back with the draft:\n%s", scr)
	}
	s.keys("C-s")
	s.see("Result · current_time")
	s.see(`arguments {"format":"h:mm A"}`)
}

// server-memory's create_entities: typing on the empty entities array
// starts an entity and fills its first field; the same on its empty
// observations.
func flowMemoryTypingStartsItems(t *testing.T, a *accept) {
	script := npmServer(t, "@modelcontextprotocol/server-memory/dist/index.js")
	home := t.TempDir()
	s := a.start(t, 80, 24, "--", "env", "HOME="+home, "MEMORY_FILE_PATH="+filepath.Join(home, "memory.jsonl"), "node", script)
	s.ready()
	s.openTool("create_entities")
	s.see("+ add item (alt+a)")
	s.typ("alice")
	s.see("name*          alice")
	s.keys("Tab")
	s.typ("person")
	s.see("entityType*    person")
	s.tabTo("+")
	s.typ("likes tea")
	s.see("[0]          likes tea")
	s.keys("C-s")
	scr := s.see("Result · create_entities")
	// The arguments row wraps at 80 columns: read it without the border
	// and the spaces.
	flat := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), "")
	if want := `{"entities":[{"name":"alice","entityType":"person","observations":["likestea"]}]}`; !strings.Contains(flat, want) {
		t.Errorf("the call did not send %s (spaces left out):\n%s", want, scr)
	}
}

// A paste of two lines into server-everything's echo keeps them (the
// field takes several lines from then on) and the server echoes both.
func flowPasteKeepsLines(t *testing.T, a *accept) {
	script := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	if script == "" {
		t.Skip("set MCPSCOPE_SERVER_EVERYTHING (as .ci/run does) to paste into server-everything's echo")
	}
	s := a.start(t, 80, 24, nodeServer(t, script, "stdio")...)
	s.ready()
	s.openTool("echo")
	s.paste("line one\nline two")
	s.see("pasted 2 lines, kept")
	s.see("           line two")
	s.keys("C-s")
	scr := s.see("Result · echo")
	rows := strings.Split(scr, "\n")
	echoed := false
	for i := 0; i+1 < len(rows); i++ {
		if strings.HasPrefix(rows[i], "│Echo: line one ") && strings.HasPrefix(rows[i+1], "│line two ") {
			echoed = true
		}
	}
	if !strings.Contains(scr, `arguments {"message":"line one\nline two"}`) || !echoed {
		t.Errorf("the two lines did not reach the server as two:\n%s", scr)
	}
}
