package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A client that rewrites its config as it runs (a new file renamed over
// the old, as Claude Code does) races tap install and uninstall 80 times:
// no write of the client's is ever lost. Each client write is numbered;
// the client, reading the file before its next write, must find the
// number it wrote last (a smaller one is a write of its overwritten by
// an older text), and the file must end with its last number.
func TestTapInstallRacingARewritingClientLosesNoClientWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "claude.json")
	const start = "{\n  \"clientSeq\": 0,\n  \"mcpServers\": {\n    \"a\": {\"command\": \"node\", \"args\": [\"a.js\"]},\n    \"b\": {\"command\": \"uvx\"}\n  }\n}\n"
	if err := os.WriteFile(file, []byte(start), 0o600); err != nil {
		t.Fatal(err)
	}
	seqRE := regexp.MustCompile(`"clientSeq": (\d+)`)
	var (
		stop    = make(chan struct{})
		done    = make(chan struct{})
		mu      sync.Mutex
		lost    []string
		written int
	)
	go func() {
		defer close(done)
		last := 0
		for i := 0; ; i++ {
			select {
			case <-stop:
				mu.Lock()
				written = last
				mu.Unlock()
				return
			default:
			}
			b, err := os.ReadFile(file)
			if err != nil || !json.Valid(b) {
				continue // caught in the middle of a write in place: read again
			}
			m := seqRE.FindSubmatch(b)
			if m == nil {
				mu.Lock()
				lost = append(lost, "the client's number is gone:\n"+string(b))
				mu.Unlock()
				return
			}
			if n, _ := strconv.Atoi(string(m[1])); n != last {
				mu.Lock()
				lost = append(lost, fmt.Sprintf("the client wrote %d, the file holds %d", last, n))
				mu.Unlock()
				last = n
			}
			next := seqRE.ReplaceAll(b, []byte(`"clientSeq": `+strconv.Itoa(last+1)))
			tmp := filepath.Join(dir, fmt.Sprintf(".claude.json.tmp.%d", i))
			if err := os.WriteFile(tmp, next, 0o600); err != nil {
				continue
			}
			if err := os.Rename(tmp, file); err != nil {
				_ = os.Remove(tmp)
				continue
			}
			last++
			// A client writes now and then, not in a tight loop.
			time.Sleep(time.Duration(i%3) * 200 * time.Microsecond)
		}
	}()
	var once sync.Once
	stopClient := func() { once.Do(func() { close(stop); <-done }) }
	defer stopClient()
	var edited, refused int
	for run := 0; run < 80; run++ {
		verb := "install"
		if run%2 == 1 {
			verb = "uninstall"
		}
		args := []string{"tap", verb, "--config", file, "--all"}
		if verb == "install" {
			args = append(args, "--command", "/opt/mcpscope")
		}
		out, err, code := runCLI(t, args...)
		switch {
		case code == exitOK && strings.Contains(out, "restart the client"):
			edited++
		case code == exitOK && strings.Contains(out, "nothing to change"):
		case code == exitUsage && err != nil && strings.Contains(err.Error(), "changed while it was being edited"):
			refused++
		default:
			t.Fatalf("%s: exit %d, %v\n%s", verb, code, err, out)
		}
	}
	stopClient()
	mu.Lock()
	defer mu.Unlock()
	for _, l := range lost {
		t.Error(l)
	}
	final, _ := os.ReadFile(file)
	if m := seqRE.FindSubmatch(final); m == nil || string(m[1]) != strconv.Itoa(written) {
		t.Errorf("the client's last write was %d; the file holds\n%s", written, final)
	}
	t.Logf("%d client writes; %d edits made, %d refused", written, edited, refused)
	if edited < 20 || written < 20 {
		t.Errorf("the race was not run: %d edits, %d client writes", edited, written)
	}
}

// A read-only file (0444) is refused with a clear message, even for root
// who could write it; a file with nothing to change is still read.
func TestTapInstallRefusesAReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	text := []byte(`{"mcpServers": {"a": {"command": "node"}}}`)
	if err := os.WriteFile(file, text, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err, code := runCLI(t, "tap", "install", "--config", file, "--all")
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("exit %d, %v", code, err)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, text) {
		t.Errorf("the file was changed:\n%s", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o444 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := os.Stat(file + backupSuffix); err == nil {
		t.Error("a backup was written for an edit not made")
	}
	out, err, code := runCLI(t, "tap", "uninstall", "--config", file, "--all")
	if code != exitOK || !strings.Contains(out, "nothing to change") {
		t.Errorf("uninstall with nothing to undo: exit %d %v\n%s", code, err, out)
	}
}
