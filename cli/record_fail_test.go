package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// tmpfsVar enables the tests that mount a tiny tmpfs (Linux, as root):
// .ci/run sets it, and they fail rather than skip when the mount fails.
const tmpfsVar = "MCPSCOPE_TMPFS_TESTS"

// A recording that cannot be written is the command's failure: call,
// test and replay exit non-zero and say the file is incomplete (call
// and test exited 0 with nothing on stderr). /dev/full fails every write
// as a full disk does.
func TestRecordOnAFullDeviceFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here; TestWriterReportsAFullDisk (mcp/sessionfile/record) injects the same failure")
	}
	for _, args := range [][]string{
		{"call", "--method", "tools/list", "--record", "/dev/full"},
		{"check", "--record", "/dev/full"},
		{"test", "--calls", writeCalls(t, minimalDemoCalls), "--record", "/dev/full"},
		{"replay", "--record", "/dev/full", demoRecording, "--", os.Args[0], "demo-server"},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, stderr, err, code := runCLISplit(args...)
			if code == exitOK {
				t.Fatalf("%s --record /dev/full exited 0; stderr %q", args[0], stderr)
			}
			if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "incomplete") {
				t.Fatalf("error %v; want one that says the session file is incomplete and why", err)
			}
		})
	}
}

// The same onto a real full file system: a 64 KiB tmpfs, nearly filled
// first, so the record is cut mid-line as a full disk cuts it; the cut
// file then reads to its last complete line.
func TestCallRecordOnAFullTmpfsFails(t *testing.T) {
	if os.Getenv(tmpfsVar) == "" {
		t.Skip(tmpfsVar + " is not set (.ci/run sets it; the test mounts a tmpfs, as root on Linux)")
	}
	if runtime.GOOS != "linux" {
		t.Fatalf("%s is set but tmpfs mounts are Linux's", tmpfsVar)
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("%s is set but a tmpfs cannot be mounted on %s: %v\n%s", tmpfsVar, dir, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	// Leave 4 KiB: the header and the first frames fit, the tools/list
	// answer does not.
	if err := os.WriteFile(filepath.Join(dir, "fill"), make([]byte, 60<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.jsonl")
	stdout, stderr, err, code := runCLISplit("call", "--method", "tools/list", "--record", path)
	if code == exitOK {
		t.Fatalf("call --record onto a full tmpfs exited 0; stderr %q", stderr)
	}
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("error %v; want the full disk named", err)
	}
	if !strings.Contains(stdout, `"tools"`) {
		t.Errorf("the answer itself was not printed: %q", stdout)
	}
	b, rerr := os.ReadFile(path)
	if rerr != nil || len(b) == 0 || b[len(b)-1] == '\n' {
		t.Fatalf("the record (%d bytes, %v) does not end mid-line as a full disk leaves it", len(b), rerr)
	}
	_, stderr, err, code = runCLISplit("export", "--format", "md", path)
	if code != exitOK || !strings.Contains(stderr, "ends mid-line") {
		t.Fatalf("export of the cut record: exit %d (%v), stderr %q", code, err, stderr)
	}
}

// cutRecording records a session of the demo server and returns it whole
// and cut in the middle of its last line.
func cutRecording(t *testing.T) (whole, cut string, lines int) {
	t.Helper()
	dir := t.TempDir()
	whole = filepath.Join(dir, "whole.jsonl")
	if _, err, code := runCLI(t, "call", "--method", "tools/list", "--record", whole, "--", os.Args[0], "demo-server"); code != exitOK {
		t.Fatalf("call --record: exit %d (%v)", code, err)
	}
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the tools/list answer, the biggest line, leaving the
	// lines before it whole.
	i := bytes.Index(b, []byte(`"inputSchema`))
	if i < 0 {
		t.Fatalf("no tools/list answer in the recording:\n%s", b)
	}
	lines = bytes.Count(b[:i], []byte("\n"))
	cut = filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, b[:i], 0o600); err != nil {
		t.Fatal(err)
	}
	return whole, cut, lines
}

// Every reader keeps the complete lines of a file cut mid-line and says
// it was cut: export, diff and replay (open: sessionfile's
// TestCutFileShowsWhatParsesAndSaysSo, and the tap's viewer in mcp/tap).
// They refused it ("unexpected end of JSON input").
func TestReadersKeepWhatParsesOfACutFile(t *testing.T) {
	whole, cut, lines := cutRecording(t)
	note := "ends mid-line after " + strconv.Itoa(lines) + " lines"
	for _, args := range [][]string{
		{"export", "--format", "md", cut},
		{"export", "--format", "html", "-o", filepath.Join(t.TempDir(), "x.html"), cut},
		{"diff", whole, cut},
		{"replay", "--record", filepath.Join(t.TempDir(), "r.jsonl"), cut, "--", os.Args[0], "demo-server"},
	} {
		t.Run(args[0], func(t *testing.T) {
			stdout, stderr, err, code := runCLISplit(args...)
			if strings.Contains(stderr+stdout, "unexpected end of JSON input") {
				t.Fatalf("%s refused the cut file: %v\n%s", args[0], err, stderr)
			}
			if !strings.Contains(stderr, note) || !strings.Contains(stderr, "cut.jsonl") {
				t.Errorf("stderr %q; want it to say the file was cut (%q)", stderr, note)
			}
			switch args[0] {
			case "export":
				// The export itself says so too: it is handed to others.
				if code != exitOK {
					t.Errorf("exit %d (%v)", code, err)
				}
				doc := stdout
				if args[2] == "html" {
					b, _ := os.ReadFile(args[4])
					doc = string(b)
				}
				if !strings.Contains(doc, "(incomplete: the file ends mid-line") {
					t.Errorf("the %s export does not say the session is incomplete:\n%s", args[2], doc)
				}
			case "replay":
				// The handshake was recorded whole and replays; the
				// request whose answer was cut off is sent, and its
				// recorded side says the file was cut there.
				if code == exitUsage || !strings.Contains(stdout, "1 match") || !strings.Contains(stdout, "the file was cut before the answer") {
					t.Errorf("exit %d (%v)\n%s", code, err, stdout)
				}
			case "diff":
				// The cut file never finished its tools listing: the
				// diff compares what both sides listed, and says so.
				if code == exitUsage {
					t.Errorf("exit %d (%v)", code, err)
				}
			}
		})
	}
}
