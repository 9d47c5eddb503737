package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/heappeak"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// deepServer answers tools/call with a structuredContent nested depth
// levels deep around leaf.
func deepServer(depth int, leaf string) mcptest.Script {
	deep := strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat("}", depth)
	return mcptest.Script{
		Capabilities: json.RawMessage(`{"tools":{}}`),
		On: map[string][][]string{
			"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"deep","inputSchema":{"type":"object"}}]}}`}},
			"tools/call": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"x"}],"structuredContent":` + deep + `}}`}},
		},
	}
}

// A result nested 9,990 deep (60 KB) costs what its bytes do in every
// writer: call's output, the HTML and Markdown exports and the calls file
// test --update rewrites each stay under 64 MiB of heap and stacks and
// 2 s, and their output within a small multiple of the input, the same
// JSON. Indented without a cap it was 200 MB of output (export: 3.4 s,
// 933 MB; test --update: 1.5 GB).
func TestDeepNestingCostsItsBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory and slowdown")
	}
	const depth = 9990 - 3 // result, structuredContent and the message itself
	dir := t.TempDir()
	rec := filepath.Join(dir, "deep.jsonl")
	callsFile := filepath.Join(dir, "deep.calls.json")
	const budget, slowest = 64 << 20, 2 * time.Second
	measure := func(what string, args ...string) string {
		t.Helper()
		var out string
		var code int
		peak, took := heappeak.Of(func() { out, _, code = runCLI(t, args...) })
		t.Logf("%s: %.1f MiB, %v, %d bytes out", what, float64(peak)/(1<<20), took.Round(time.Millisecond), len(out))
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%.2000s", what, code, out)
		}
		if peak > budget || took > slowest {
			t.Errorf("%s: %.1f MiB and %v (budget 64 MiB and 2 s)", what, float64(peak)/(1<<20), took)
		}
		return out
	}
	small := func(what, path string) []byte {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 4<<20 {
			t.Errorf("%s is %d bytes for a 60 KB result", what, len(b))
		}
		return b
	}

	out := measure("call", append([]string{"call", "--method", "tools/call", "--tool-name", "deep", "--record", rec}, scriptArgs(deepServer(depth, "1"))...)...)
	if len(out) > 4<<20 {
		t.Errorf("call printed %d bytes for a 60 KB result", len(out))
	}
	var printed struct{ StructuredContent json.RawMessage }
	// The doctor's warning follows the result (stderr is in out too).
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&printed); err != nil || compactJSON(t, printed.StructuredContent) != strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth) {
		t.Errorf("call's output is not the result (%v)", err)
	}
	for _, format := range []string{"html", "md"} {
		file := filepath.Join(dir, "deep."+format)
		measure("export "+format, "export", rec, "--format", format, "-o", file)
		small("the "+format+" export", file)
	}
	if _, err, code := runCLI(t, "test", "--from", rec, "--calls", callsFile); code != exitOK {
		t.Fatalf("test --from: %v", err)
	}
	small("the calls file", callsFile)
	measure("test --update", append([]string{"test", "--update", "--calls", callsFile}, scriptArgs(deepServer(depth, "2"))...)...)
	b := small("the updated calls file", callsFile)
	if !strings.Contains(string(b), `"a": 2`) {
		t.Error("test --update did not write the new snapshot")
	}
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
