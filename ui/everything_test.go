package ui

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/panes"
)

// Every tool of @modelcontextprotocol/server-everything is called through
// the UI model (the form emits CallToolMsg; the elicitation and sampling
// modals are answered with their keys), against the real server. Enabled
// by MCPSCOPE_NODE_TESTS, as .ci/run does.
func TestEveryServerEverythingToolFromTheUI(t *testing.T) {
	se := os.Getenv("MCPSCOPE_SERVER_EVERYTHING")
	if os.Getenv("MCPSCOPE_NODE_TESTS") == "" {
		t.Skip("set MCPSCOPE_NODE_TESTS=1 and MCPSCOPE_SERVER_EVERYTHING (see .ci/run)")
	}
	if _, err := exec.LookPath("node"); err != nil || se == "" {
		t.Fatalf("MCPSCOPE_NODE_TESTS is set but node or MCPSCOPE_SERVER_EVERYTHING is missing: %v", err)
	}
	w := &wire{}
	m := New(Config{Target: "everything", Theme: "dark", Roots: []policy.Root{{URI: "file:///srv/project", Name: "project"}},
		NewClient: func() *mcp.Client {
			tr := &mcp.StdioTransport{Command: "node", Args: []string{se}, Grace: 200 * time.Millisecond}
			return mcp.NewClient(tr, mcp.Options{Discover: true, OnEvent: w.observe})
		}})
	p := &program{t: t, m: m, msgs: make(chan tea.Msg, 4096)}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	p.run(m.Init())
	p.until("the tools and resources", func() bool {
		return len(m.lists["tools/list"]) >= 17 && len(m.lists["resources/list"]) > 0
	})

	// The last tools/call response in the wire, as text.
	lastResult := func() (string, bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i := len(w.frames) - 1; i >= 0; i-- {
			if f := w.frames[i]; f.Dir == mcp.Inbound && f.ReplyToMethod == "tools/call" {
				return string(f.Raw), true
			}
		}
		return "", false
	}
	calls := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		n := 0
		for _, f := range w.frames {
			if f.Dir == mcp.Inbound && f.ReplyToMethod == "tools/call" {
				n++
			}
		}
		return n
	}
	// Subscribe to a resource first: toggle-subscriber-updates makes the
	// server send notifications/resources/updated for it, which are counted.
	var res []struct {
		URI string `json:"uri"`
	}
	for _, raw := range m.lists["resources/list"] {
		var r struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(raw, &r)
		res = append(res, r)
	}
	if len(res) == 0 {
		t.Fatal("server-everything listed no resources")
	}
	sub := res[0].URI
	p.send(panes.SubscribeMsg{URI: sub, On: true})
	p.until("the subscription", func() bool { return len(m.resources.Subscribed()) == 1 })
	for _, tc := range []struct {
		tool, args, want string
		answer           []string // keys for a modal the call opens
	}{
		{"echo", `{"message":"hi"}`, "Echo: hi", nil},
		{"get-annotated-message", `{"messageType":"success","includeImage":true}`, `"annotations"`, nil},
		{"get-env", `{}`, "PATH", nil},
		{"get-resource-links", `{"count":2}`, `"resource_link"`, nil},
		{"get-resource-reference", `{"resourceType":"Text","resourceId":1}`, `"type":"resource"`, nil},
		{"get-structured-content", `{"location":"Chicago"}`, `"structuredContent"`, nil},
		{"get-sum", `{"a":2,"b":40}`, "42", nil},
		{"get-tiny-image", `{}`, `"image/png"`, nil},
		{"gzip-file-as-resource", `{"name":"hello.txt.gz","data":"data:text/plain;base64,aGVsbG8="}`, "hello.txt.gz", nil},
		{"toggle-simulated-logging", `{}`, "logging", nil},
		{"toggle-subscriber-updates", `{}`, "pdates", nil},
		{"trigger-long-running-operation", `{"duration":1,"steps":2}`, "completed", nil},
		{"get-roots-list", `{}`, "file:///srv/project", nil},
		{"trigger-elicitation-request", `{}`, "User provided the requested information", []string{"ctrl+s"}},
		{"trigger-sampling-request", `{"prompt":"say hi","maxTokens":10}`, "mcpscope-human", []string{"ctrl+r", "ctrl+s"}},
		{"trigger-url-elicitation", `{"url":"https://example.com/approve","elicitationId":"e1"}`, "", []string{"ctrl+s"}},
		{"simulate-research-query", `{"topic":"mcp"}`, "", nil},
	} {
		before := calls()
		p.send(panes.CallToolMsg{Name: tc.tool, Args: json.RawMessage(tc.args)})
		if tc.answer != nil {
			p.until(tc.tool+" asking", func() bool { return m.modal == modalAsk })
			p.keys(tc.answer...)
		}
		p.until(tc.tool+"'s answer", func() bool { return calls() > before })
		got, _ := lastResult()
		if strings.Contains(got, `"error":`) {
			t.Errorf("%s: a JSON-RPC error: %.300s", tc.tool, got)
			continue
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: the result lacks %q: %.400s", tc.tool, tc.want, got)
		}
		if m.modal == modalResult || m.modal == modalContent {
			p.keys("esc")
		}
	}
	p.until("updates of the subscribed resource counted", func() bool { return m.resources.Updates(sub) >= 1 })
}
