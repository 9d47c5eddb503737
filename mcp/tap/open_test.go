package tap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// `mcpscope open` shows a capture as `mcpscope taps` does, so it must
// know one: by the header a tap writes now, and, for a capture written
// before headers said so and copied out of the taps' directory, by its
// client not being mcpscope. mcpscope's own recordings are not captures.
func TestCaptureKnowsACapture(t *testing.T) {
	privateDirs(t)
	old := filepath.Join("..", "..", "testdata", "captures", "claude-code-2.1.328-stdio.jsonl")
	l, ok := Capture(old)
	if !ok {
		t.Fatalf("%s (Claude Code through a tap) is not taken for a capture", old)
	}
	if l.Name != "everything" || len(l.Command) == 0 || l.Live {
		t.Errorf("described as %+v", l)
	}
	own := filepath.Join("..", "sessionfile", "record", "testdata", "format1-demo-stdio.jsonl")
	if _, ok := Capture(own); ok {
		t.Errorf("%s (mcpscope --record) is taken for a capture", own)
	}
	if _, ok := Capture(filepath.Join(t.TempDir(), "none.jsonl")); ok {
		t.Error("a missing file is taken for a capture")
	}

	// A capture the tap writes now says so, and is found wherever it is.
	r := throughTap(t, StdioOptions{Name: "marked", Command: "sh", Args: []string{"-c", "cat >/dev/null"}}, nil)
	b, err := os.ReadFile(r.out.File)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(head, `"recorder":"tap"`) {
		t.Errorf("the header does not say a tap wrote it: %s", head)
	}
	moved := filepath.Join(t.TempDir(), "copy.jsonl")
	if err := os.WriteFile(moved, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if l, ok := Capture(moved); !ok || l.Name != "marked" {
		t.Errorf("a copied capture: %+v %v", l, ok)
	}
}

// The viewer of a capture shows the client that spoke and judges with its
// profile (Claude's hints here), unless it is told another profile.
func TestCaptureSourceNamesTheClientAndItsProfile(t *testing.T) {
	privateDirs(t)
	l, ok := Capture(filepath.Join("..", "..", "testdata", "captures", "claude-code-2.1.328-stdio.jsonl"))
	if !ok {
		t.Fatal("not a capture")
	}
	for _, c := range []struct {
		profile  doctor.Profile
		name     string
		wantHint bool
	}{{"", "claude-code 2.1.328 (claude profile)", true}, {doctor.ProfileGeneric, "claude-code 2.1.328 (generic profile)", false}} {
		s := NewSource(l)
		s.Profile = c.profile
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		var client string
		hint := false
		for ev := range s.Events() {
			switch e := ev.(type) {
			case mcp.HandshakeEvent:
				client = e.Handshake.ClientInfo.Name
			case mcp.DiagnosticEvent:
				if strings.HasPrefix(e.Diagnostic.Rule, "profile/claude") {
					hint = true
				}
			}
		}
		_ = s.Close()
		if got := s.TransportName(); !strings.Contains(got, c.name) {
			t.Errorf("profile %q: the header says %q, want %q", c.profile, got, c.name)
		}
		if client != "claude-code" || hint != c.wantHint {
			t.Errorf("profile %q: handshake client %q, Claude hint %v", c.profile, client, hint)
		}
	}
}
