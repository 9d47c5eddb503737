package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/tap"
)

// A capture cut short is not listed as an ordinary ended one: taps
// --list says CUT and why, the picker a cut kind.
func TestTapsListSaysACaptureIsCut(t *testing.T) {
	cut := tap.Listed{Info: tap.Info{ID: "x", Name: "demo", File: "/t/x.jsonl", Started: time.Now()},
		Cut: "the write failed: no space left on device"}
	whole := tap.Listed{Info: tap.Info{ID: "y", Name: "other", File: "/t/y.jsonl", Started: time.Now()}}
	var out bytes.Buffer
	printTaps(&out, []tap.Listed{cut, whole})
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "CUT") || !strings.Contains(lines[0], "no space left on device") {
		t.Errorf("the cut capture's row: %q", lines[0])
	}
	if !strings.HasPrefix(lines[2], "ended") || strings.Contains(lines[2], "incomplete") {
		t.Errorf("the whole capture's row: %q", lines[2])
	}
	items := tapItems([]tap.Listed{cut, whole})
	if items[0].Kind != "cut" || items[1].Kind != "ended" {
		t.Errorf("picker kinds %q, %q", items[0].Kind, items[1].Kind)
	}
}
