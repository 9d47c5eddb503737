package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/demo"
)

// methodCounter counts the JSON-RPC requests POSTed to the demo server's
// HTTP handler, by method.
type methodCounter struct {
	mu     sync.Mutex
	counts map[string]int
	next   http.Handler
}

func (m *methodCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" && msg.ID != nil {
			m.mu.Lock()
			m.counts[msg.Method]++
			m.mu.Unlock()
		}
	}
	m.next.ServeHTTP(w, r)
}

func (m *methodCounter) take() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	got := maps.Clone(m.counts)
	clear(m.counts)
	return got
}

// check asks for each list once: the doctor and the report share what
// one listing brought; --relist, and --call-tools' calls, are the
// requests it adds.
func TestCheckRequestsEachListOnce(t *testing.T) {
	counter := &methodCounter{counts: map[string]int{}, next: demo.HTTPHandler()}
	srv := httptest.NewServer(counter)
	defer srv.Close()
	lists := map[string]int{"initialize": 1, "tools/list": 1, "prompts/list": 1, "resources/list": 1, "resources/templates/list": 1}
	withTwice := map[string]int{"initialize": 1, "tools/list": 2, "prompts/list": 2, "resources/list": 2, "resources/templates/list": 2}
	for _, c := range []struct {
		args []string
		want map[string]int
	}{
		{[]string{"check", "--format", "json"}, lists},
		{[]string{"check", "--format", "json", "--relist"}, withTwice},
		{[]string{"check", "--format", "json", "--relist-delay", "1ms"}, withTwice},
	} {
		out, err, code := runCLI(t, append(c.args, srv.URL+"/mcp")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d (%v)\n%s", c.args, code, err, out)
		}
		if got := counter.take(); !maps.Equal(got, c.want) {
			t.Errorf("%v sent %v, want %v", c.args, got, c.want)
		}
	}

	out, _, err, code := runCLISplit("check", "--format", "json", "--call-tools", srv.URL+"/mcp")
	if code != exitOK {
		t.Fatalf("--call-tools: exit %d (%v)\n%s", code, err, out)
	}
	got := counter.take()
	calls := got["tools/call"]
	delete(got, "tools/call")
	if !maps.Equal(got, lists) || calls == 0 {
		t.Errorf("--call-tools sent %v and %d tools/call, want %v and one call a tool", got, calls, lists)
	}
	var rep struct {
		ToolCalls []json.RawMessage `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if calls != len(rep.ToolCalls) {
		t.Errorf("%d tools/call for %d tools reported", calls, len(rep.ToolCalls))
	}
}
