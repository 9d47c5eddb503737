package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// check on a server whose tool is named with 10 MB quotes 200 characters
// of the name and its length, in the text report and in JSON, and does
// not hold the name once per finding: the report was 20 MB (the name
// twice) and the run peaked at 243 MB, 3.6 s; now 1.6 KB and 190 MB (39
// MB of it check's own start, the tokenizer's tables among it), most of
// the rest the two listings check makes (it lists twice to see a change)
// and counting the tokens of a 10 MB definition. The plain run uses 2 MB
// (76-88 MB, 96 MB before); the peak is guarded at twice that.
func TestCheckQuotesALongToolNameCut(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates RSS several times over")
	}
	bin, err := realBinary()
	if err != nil {
		t.Fatal(err)
	}
	size := 2 << 20
	name := strings.Repeat("n", size)
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(`[{"name":"`+name+`","inputSchema":{"type":"object"}},{"name":"ok","inputSchema":{"type":"object"}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		start := time.Now()
		peak, out := childPeakRSS(t, exec.Command(bin, "check", "--format", format, "--relist-delay", "0s",
			"-e", mcptest.EnvVar+"=tools-file", "-e", mcptest.ToolsFileVar+"="+tools, "--", os.Args[0]))
		t.Logf("%s: peak RSS %.1f MB, %v, a report of %d bytes", format, float64(peak)/1e6, time.Since(start).Round(time.Millisecond), len(out))
		if len(out) > 64<<10 {
			t.Errorf("%s: the report is %d bytes for a %d-byte tool name", format, len(out), size)
		}
		cut := `"` + strings.Repeat("n", 200) + `"… (2097152 bytes)`
		if format == "text" && !strings.Contains(out, "Tool name "+cut+" is outside") {
			t.Errorf("the finding does not quote the name cut with its length:\n%.3000s", out)
		}
		if format == "json" {
			var rep struct {
				Tokens struct {
					Tools []struct {
						Name      string `json:"name"`
						NameBytes int    `json:"nameBytes"`
					} `json:"tools"`
				} `json:"tokens"`
			}
			if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
				t.Fatalf("%v\n%.3000s", err, out)
			}
			if len(rep.Tokens.Tools) != 2 || rep.Tokens.Tools[0].Name != strings.Repeat("n", 200) || rep.Tokens.Tools[0].NameBytes != size {
				t.Errorf("the JSON report's tools: %+v", rep.Tokens.Tools)
			}
		}
		if peak > 170<<20 {
			t.Errorf("%s: check peaked at %.1f MiB (guard 170 MiB)", format, float64(peak)/(1<<20))
		}
	}
}
