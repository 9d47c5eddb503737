package doctor_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // when re-executed as the fake or the demo server
	os.Exit(m.Run())
}

// session is what one linted connection produced.
type session struct {
	events     []mcp.Event
	diags      []*mcp.Diagnostic
	connectErr error
}

func (s *session) fired(rule string) bool {
	for _, d := range s.diags {
		if d.Rule == rule {
			return true
		}
	}
	return false
}

func (s *session) rules() []string {
	var out []string
	for _, d := range s.diags {
		out = append(out, d.Rule+" ("+d.Severity.String()+"): "+d.Message)
	}
	return out
}

// run connects a linted client to a transport, performs act (a ping when
// nil, which also flushes everything the server sent before), closes, and
// returns every event.
func run(t *testing.T, tr mcp.Transport, opts mcp.Options, lopts doctor.Options, act func(ctx context.Context, c *mcp.Client)) *session {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	opts.Analyzer = doctor.New(lopts)
	c := mcp.NewClient(tr, opts)
	var mu sync.Mutex
	s := &session{}
	done := make(chan struct{})
	ch := c.Events()
	go func() {
		defer close(done)
		for ev := range ch {
			mu.Lock()
			s.events = append(s.events, ev)
			mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Connect(ctx); err != nil {
		s.connectErr = err
	} else if act != nil {
		act(ctx, c)
	} else {
		_, _ = c.Call(ctx, "ping", nil, mcp.WithTimeout(2*time.Second))
	}
	_ = c.Close()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("event stream did not close")
	}
	for _, ev := range s.events {
		if de, ok := ev.(mcp.DiagnosticEvent); ok {
			s.diags = append(s.diags, de.Diagnostic)
		}
	}
	return s
}

// scripted runs this test binary as a scripted server.
func scripted(sc mcptest.Script) *mcp.StdioTransport {
	return &mcp.StdioTransport{Command: os.Args[0], Env: sc.Env(), Grace: 2 * time.Second}
}

// Line builders for scripts.

func res(result string) string { return `{"jsonrpc":"2.0","id":{{id}},"result":` + result + `}` }

func rpcErr(code int, msg string, data string) string {
	m, _ := json.Marshal(msg)
	s := `{"jsonrpc":"2.0","id":{{id}},"error":{"code":` + itoa(code) + `,"message":` + string(m)
	if data != "" {
		s += `,"data":` + data
	}
	return s + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func initRes(caps string) string {
	return res(`{"protocolVersion":"{{version}}","capabilities":` + caps + `,"serverInfo":{"name":"t","version":"1"}}`)
}

func notif(method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
}

func tools(entries ...string) string { return res(`{"tools":[` + strings.Join(entries, ",") + `]}`) }

const okSchema = `{"type":"object","properties":{"n":{"type":"integer"}}}`

func tool(name, extra string) string {
	s := `{"name":"` + name + `","inputSchema":` + okSchema
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// discover is a complete 2026-07-28 server/discover result with caps.
func discover(caps string) string {
	return res(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":` + caps + `,"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"1"}}}`)
}

// modernList is a complete 2026-07-28 list result.
func modernList(key, items string) string {
	return res(`{"resultType":"complete","` + key + `":[` + items + `],"ttlMs":1000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"m","version":"1"}}}`)
}

func listAll(method string) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) { _, _, _ = c.ListAll(ctx, method) }
}

func listTwice(method string) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) {
		_, _, _ = c.ListAll(ctx, method)
		_, _, _ = c.ListAll(ctx, method)
	}
}

func callTool(name string, opts ...mcp.CallOption) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) {
		_, _, _ = c.ListAll(ctx, "tools/list")
		_, _ = c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, append(opts, mcp.WithTimeout(3*time.Second))...)
		_, _ = c.Call(ctx, "ping", nil, mcp.WithTimeout(2*time.Second))
	}
}

func call(method string, opts ...mcp.CallOption) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) {
		_, _ = c.Call(ctx, method, map[string]any{}, append(opts, mcp.WithTimeout(time.Second))...)
		_, _ = c.Call(ctx, "ping", nil, mcp.WithTimeout(2*time.Second))
	}
}
