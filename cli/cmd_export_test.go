package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ format, want string }{
		{"html", "<!DOCTYPE html>"},
		{"md", "## MCP session: broken-server"},
		{"har", `"version": "1.2"`},
	} {
		out := filepath.Join(dir, "x."+f.format)
		_, err, code := runCLI(t, "export", "--format", f.format, "-o", out, "../mcp/sessionfile/export/testdata/broken-call.jsonl")
		if code != exitOK {
			t.Fatalf("%s: exit %d (%v)", f.format, code, err)
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), f.want) {
			t.Errorf("%s: %v, output lacks %q", f.format, err, f.want)
		}
	}
	if _, _, code := runCLI(t, "export", "--format", "pdf", "../mcp/sessionfile/export/testdata/broken-call.jsonl"); code != exitUsage {
		t.Errorf("an unknown format: exit %d", code)
	}
	if _, _, code := runCLI(t, "export", "missing.jsonl"); code != exitUsage {
		t.Errorf("a missing file: exit %d", code)
	}
}
