package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/tap/join"
)

// wxTapArgs are the arguments of `mcpscope tap` in front of the test
// server: the client's MCP traffic is captured while its model traffic
// goes through the model tap, so the two captures can be joined.
func wxTapArgs(serverJS, toolsFile string) []string {
	return []string{"tap", "--name", "wx", "--", "node", serverJS, toolsFile}
}

// joinWx joins the model tap's capture with the MCP tap's captures of
// wx (taps --join finds them by their time) and returns the report and
// the text `open MODEL --with MCP...` prints of the same captures.
func (m *runningModelTap) joinWx() (join.Report, string) {
	m.t.Helper()
	files, _ := filepath.Glob(filepath.Join(m.dir, "*.jsonl"))
	var model string
	var mcps []string
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "model") {
			model = f
		} else {
			mcps = append(mcps, f)
		}
	}
	if model == "" || len(mcps) == 0 {
		m.t.Fatalf("captures %v: want the model tap's and wx's", files)
	}
	out := m.r.mcpscopeRun(nil, "taps", "--join", strings.TrimSuffix(filepath.Base(model), ".jsonl"), "--format", "json")
	var r join.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		m.t.Fatalf("taps --join --format json: %v\n%s", err, out)
	}
	if len(r.Servers) != len(mcps) {
		m.t.Errorf("taps --join joined %d MCP captures, the tap made %d", len(r.Servers), len(mcps))
	}
	args := []string{"open", model}
	for _, f := range mcps {
		args = append(args, "--with", f)
	}
	text := m.r.mcpscopeRun(nil, args...)
	m.t.Logf("mcpscope open MODEL --with MCP:\n%s", text)
	if strings.Contains(out+text, "MODELTAP-KEY") {
		m.t.Error("the joined view shows the API key")
	}
	return r, text
}

// joinedTool is the tool of wx named so, from the MCP capture that
// listed it (the first) with the calls of every capture.
func joinedTool(t *testing.T, r join.Report, name string) join.ToolJoin {
	t.Helper()
	var out join.ToolJoin
	found := false
	for _, s := range r.Servers {
		for _, tj := range s.Tools {
			if tj.Server.Name != name {
				continue
			}
			if !found {
				out, found = tj, true
				continue
			}
			out.ServerCalls = append(out.ServerCalls, tj.ServerCalls...)
		}
	}
	if !found {
		t.Fatalf("the joined view has no tool %s: %+v", name, r.Servers)
	}
	return out
}

// joinedChange is the change of a kind the join names for a tool.
func joinedChange(t *testing.T, r join.Report, name, kind string) (join.Change, bool) {
	t.Helper()
	for _, c := range joinedTool(t, r, name).Changes {
		if c.Kind == kind {
			return c, true
		}
	}
	return join.Change{}, false
}

// wantChange fails unless the join names the change, with the rule, as
// the view predicted it.
func wantChange(t *testing.T, r join.Report, name, kind, text, rule string) {
	t.Helper()
	c, ok := joinedChange(t, r, name, kind)
	switch {
	case !ok:
		t.Errorf("%s: the joined view names no %q: %+v", name, kind, joinedTool(t, r, name).Changes)
	case !strings.Contains(c.Text, text) || !slices.Contains(c.Rules, rule) || c.Predicted != "yes":
		t.Errorf("%s: the joined view says %+v; want %q, rule %s, as the view predicts", name, c, text, rule)
	}
}

// noneMispredicted fails on every change the view did not predict.
func noneMispredicted(t *testing.T, r join.Report) {
	t.Helper()
	for _, s := range r.Servers {
		for _, tj := range s.Tools {
			for _, c := range tj.Changes {
				if c.Predicted == "no" {
					t.Errorf("%s: %s %s, which the view did not predict (it says %s)", tj.Server.Name, c.Kind, c.Text, c.Wrong)
				}
			}
		}
	}
}

// everyChangeRuled fails on every change the join names without the
// view's rule for it.
func everyChangeRuled(t *testing.T, r join.Report) {
	t.Helper()
	for _, s := range r.Servers {
		for _, tj := range s.Tools {
			for _, c := range tj.Changes {
				if len(c.Rules) == 0 {
					t.Errorf("%s: %s %s, with no rule of the view", tj.Server.Name, c.Kind, c.Text)
				}
			}
		}
	}
}

var longName = strings.Repeat("n", 35) + strings.Repeat("z", 35)

// Claude Code, joined: each change it made named with its rule, and the
// 300 KB result followed from the model's call to the server and back
// to what the model was given.
func checkClaudeJoin(t *testing.T, r join.Report, text string) {
	t.Helper()
	if r.Client != "claude" {
		t.Errorf("the join predicted with the %s view (%s)", r.Client, r.From)
	}
	noneMispredicted(t, r)
	wantChange(t, r, "get.weather", "renamed", "get.weather → mcp__wx__get_weather", "claude/prefix")
	wantChange(t, r, "get.weather", "deferred", "defer_loading", "claude/tool-search")
	wantChange(t, r, longName, "renamed", longName+" → mcp__wx__"+longName, "claude/prefix")
	wantChange(t, r, "either", "schema rewritten", "bytes", "claude/schema-combinators")
	wantChange(t, r, "either", "description rewritten", "text added", "claude/schema-combinators")
	wantChange(t, r, "refresh", "dropped", "_meta.ui.visibility", "claude/visibility")
	if w := joinedTool(t, r, "wordy"); w.Presented == nil || w.Presented.DescriptionChars != 3000 {
		t.Errorf("wordy: presented as %+v, want its 3,000 characters whole", w.Presented)
	}
	for _, name := range []string{"wordy", "maybe"} {
		for _, kind := range []string{"description cut", "description rewritten", "schema rewritten"} {
			if c, ok := joinedChange(t, r, name, kind); ok {
				t.Errorf("%s: %+v; Claude Code sent it as served", name, c)
			}
		}
	}
	big := joinedTool(t, r, "big")
	if len(big.ModelCalls) != 1 || big.ModelCalls[0].ID != "toolu_2" {
		t.Errorf("big: the model's calls joined as %+v", big.ModelCalls)
	}
	if len(big.ServerCalls) != 1 || big.ServerCalls[0].TextChars != 300*1024 {
		t.Errorf("big: the server's calls joined as %+v", big.ServerCalls)
	}
	if g := big.Given; len(g) != 1 || g[0].How != "saved to a file" || g[0].Bytes > 4096 || !slices.Contains(g[0].Rules, "claude/result-limits") {
		t.Errorf("big: what the model was given joined as %+v", g)
	}
	if len(r.Requests) != 3 || r.Requests[2].Usage == nil || r.Requests[0].Joined != 0 || r.Requests[1].Joined == 0 {
		t.Errorf("the requests joined as %+v", r.Requests)
	}
	for _, want := range []string{
		"renamed get.weather → mcp__wx__get_weather (claude/prefix); as the view predicts",
		"saved to a file (claude/result-limits)",
		"the API's count, which covers the whole request",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("open --with does not say %q:\n%s", want, text)
		}
	}
}

// Gemini CLI, joined: its renames, the cut name and nullable, each with
// its rule, the tool for views alone sent all the same, and the 300 KB
// result followed from the model's call to what the model was given.
func checkGeminiJoin(t *testing.T, r join.Report, text string) {
	t.Helper()
	if r.Client != "gemini" {
		t.Errorf("the join predicted with the %s view (%s)", r.Client, r.From)
	}
	noneMispredicted(t, r)
	wantChange(t, r, "get.weather", "renamed", "get.weather → mcp_wx_get.weather", "gemini/prefix")
	wantChange(t, r, longName, "renamed", "...", "gemini/name-length")
	wantChange(t, r, "maybe", "schema rewritten", "bytes", "gemini/nullable")
	if w := joinedTool(t, r, "wordy"); w.Presented == nil || w.Presented.DescriptionChars != 3000 {
		t.Errorf("wordy: presented as %+v, want its 3,000 characters whole", w.Presented)
	}
	if c, ok := joinedChange(t, r, "refresh", "dropped"); ok || joinedTool(t, r, "refresh").Presented == nil {
		t.Errorf("refresh: %+v; Gemini CLI sends a tool for views alone", c)
	}
	big := joinedTool(t, r, "big")
	if len(big.ModelCalls) != 1 || len(big.ServerCalls) != 1 || big.ServerCalls[0].TextChars != 300*1024 {
		t.Errorf("big: the model's calls joined as %+v, the server's as %+v", big.ModelCalls, big.ServerCalls)
	}
	// Gemini CLI 0.61.0 gave its model the first 8,000 and last 32,000
	// characters and the path of the whole, as gemini/result-limits says.
	if g := big.Given; len(g) != 1 || g[0].How != "saved to a file" || g[0].Bytes < 40000 || g[0].Bytes > 41000 || !slices.Contains(g[0].Rules, "gemini/result-limits") {
		t.Errorf("big: what the model was given joined as %+v", g)
	}
	for _, want := range []string{"renamed get.weather → mcp_wx_get.weather (gemini/prefix); as the view predicts", "saved to a file (gemini/result-limits)"} {
		if !strings.Contains(text, want) {
			t.Errorf("open --with does not say %q:\n%s", want, text)
		}
	}
}

// opencode, joined: its renames and schema rewrites, each with its rule,
// and the 300 KB result followed to the file note the model was given.
func checkOpenCodeJoin(t *testing.T, r join.Report, text string) {
	t.Helper()
	if r.Client != "opencode" {
		t.Errorf("the join predicted with the %s view (%s)", r.Client, r.From)
	}
	noneMispredicted(t, r)
	wantChange(t, r, "get.weather", "renamed", "get.weather → wx_get_weather", "opencode/prefix")
	wantChange(t, r, longName, "renamed", longName+" → wx_"+longName, "opencode/prefix")
	wantChange(t, r, "either", "schema rewritten", "bytes", "opencode/schema")
	everyChangeRuled(t, r)
	checkBigJoined(t, r, "opencode/result-limits", 0, 4096)
	if !strings.Contains(text, "renamed get.weather → wx_get_weather (opencode/prefix); as the view predicts") {
		t.Errorf("open --with does not name the rename:\n%s", text)
	}
}

// Copilot CLI, joined: its renames, the cut name and the anyOf removed,
// each with its rule, and the 300 KB result followed to the file note
// and preview the model was given.
func checkCopilotJoin(t *testing.T, r join.Report, text string) {
	t.Helper()
	if r.Client != "copilot" {
		t.Errorf("the join predicted with the %s view (%s)", r.Client, r.From)
	}
	noneMispredicted(t, r)
	wantChange(t, r, "get.weather", "renamed", "get.weather → wx-get-weather", "copilot/prefix")
	wantChange(t, r, longName, "renamed", "wx-"+longName[:61], "copilot/name-length")
	wantChange(t, r, "either", "schema rewritten", "bytes", "copilot/schema")
	wantChange(t, r, "big", "schema rewritten", "bytes", "copilot/schema")
	everyChangeRuled(t, r)
	checkBigJoined(t, r, "copilot/result-limits", 500, 2048)
	if !strings.Contains(text, "renamed get.weather → wx-get-weather (copilot/prefix); as the view predicts") {
		t.Errorf("open --with does not name the rename:\n%s", text)
	}
}

// checkBigJoined fails unless the 300 KB tool's one call is followed
// from the model to the server and back to a note of the saved file
// (between least and most bytes) that names the rule.
func checkBigJoined(t *testing.T, r join.Report, rule string, least, most int) {
	t.Helper()
	if w := joinedTool(t, r, "wordy"); w.Presented == nil || w.Presented.DescriptionChars != 3000 {
		t.Errorf("wordy: presented as %+v, want its 3,000 characters whole", w.Presented)
	}
	big := joinedTool(t, r, "big")
	if len(big.ModelCalls) != 1 || len(big.ServerCalls) != 1 || big.ServerCalls[0].TextChars != 300*1024 {
		t.Errorf("big: the model's calls joined as %+v, the server's as %+v", big.ModelCalls, big.ServerCalls)
	}
	if g := big.Given; len(g) != 1 || g[0].How != "saved to a file" || g[0].Bytes < least || g[0].Bytes > most || !slices.Contains(g[0].Rules, rule) {
		t.Errorf("big: what the model was given joined as %+v", g)
	}
}

// Codex, joined: the tool for views alone dropped and the 300 KB result
// followed from the model's exec script to the server and back to the
// cut output the model was given, each with its rule. The other tools'
// definitions reach the model only as what its own script prints of
// ALL_TOOLS, which no request defines: the join says they were not sent,
// deferred (testCodexView compares that printout with the view).
func checkCodexJoin(t *testing.T, r join.Report, text string) {
	t.Helper()
	if r.Client != "codex" {
		t.Errorf("the join predicted with the %s view (%s)", r.Client, r.From)
	}
	noneMispredicted(t, r)
	wantChange(t, r, "refresh", "dropped", "_meta.ui.visibility", "codex/visibility")
	for _, name := range []string{"get.weather", longName, "maybe", "either", "wordy", "big"} {
		if c, ok := joinedChange(t, r, name, "not sent"); !ok || !slices.Contains(c.Rules, "codex/deferred") {
			t.Errorf("%s: joined as %+v; want not sent, deferred (codex/deferred)", name, joinedTool(t, r, name).Changes)
		}
	}
	big := joinedTool(t, r, "big")
	if len(big.ModelCalls) != 1 || big.ModelCalls[0].ID != "call_2" || big.ModelCalls[0].Via != "exec" {
		t.Errorf("big: the model's calls joined as %+v", big.ModelCalls)
	}
	if len(big.ServerCalls) != 1 || big.ServerCalls[0].TextChars != 300*1024 {
		t.Errorf("big: the server's calls joined as %+v", big.ServerCalls)
	}
	if g := big.Given; len(g) != 1 || g[0].How != "cut" || g[0].Bytes < 40000 || g[0].Bytes > 41000 || !slices.Contains(g[0].Rules, "codex/result-limits") {
		t.Errorf("big: what the model was given joined as %+v", g)
	}
	for _, want := range []string{"the model called it in #2 (call_2), in its exec script", "cut (codex/result-limits)"} {
		if !strings.Contains(text, want) {
			t.Errorf("open --with does not say %q:\n%s", want, text)
		}
	}
}
