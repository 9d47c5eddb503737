package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/telemetry"
)

// TestStdioTapExportsTheClientsConversation runs the demo behind a tap
// whose recorder feeds an OpenTelemetry export: the client still gets the
// direct run's bytes, and the spans describe the client's conversation,
// its traceparent making the tap's span a child of the client's.
func TestStdioTapExportsTheClientsConversation(t *testing.T) {
	privateDirs(t)
	script := append([]string(nil), clientScript[:3]...)
	script = append(script,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`+"\n",
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n")
	name, args := demoCmd()
	want, _ := direct(t, script, name, args...)

	var otlp bytes.Buffer
	e, err := telemetry.New(context.Background(), telemetry.Config{JSON: &otlp, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	conv := e.Conversation(telemetry.Options{Transport: "stdio", Server: "demo", Tap: true})
	var order []string
	r := throughTap(t, StdioOptions{Name: "demo", Command: name, Args: args, Recording: Recording{OnEvent: func(ev mcp.Event) {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			order = append(order, fe.Frame.Dir.String()+" "+fe.Frame.Kind.String())
		} else {
			order = append(order, typeName(ev))
		}
		conv.Observe(ev)
	}}}, script)
	conv.End(time.Time{})
	if rep := e.Close(); rep.Dropped != 0 {
		t.Fatalf("report %+v", rep)
	}
	if got := r.stdout.String(); got != string(want) {
		t.Fatalf("the client got other bytes through the tap with export on:\n%q\n%q", got, want)
	}
	if n := len(order); n < 2 || order[n-2] != "ExitEvent" || order[n-1] != "StateEvent" {
		t.Errorf("OnEvent saw %v: want the frames, then the exit and the state", order)
	}

	type span struct {
		TraceID, SpanID, ParentSpanID, Name string
	}
	var spans []span
	service := ""
	for _, line := range strings.Split(strings.TrimSpace(otlp.String()), "\n") {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct{ Spans []span }
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.StringValue
				}
			}
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	if service != "claude-ai" {
		t.Errorf("service %q, want the client's clientInfo name", service)
	}
	names := map[string]span{}
	for _, s := range spans {
		names[s.Name] = s
	}
	for _, n := range []string{"mcp connection demo", "initialize", "tools/list", "tools/call echo", "ping"} {
		if _, ok := names[n]; !ok {
			t.Errorf("no span %q among %+v", n, spans)
		}
	}
	if c := names["tools/call echo"]; c.TraceID != "0af7651916cd43dd8448eb211c80319c" || c.ParentSpanID != "b7ad6b7169203331" {
		t.Errorf("tools/call is %+v: want the client's trace and span as its parent", c)
	}
	if p := names["ping"]; p.ParentSpanID != names["mcp connection demo"].SpanID {
		t.Errorf("ping's parent %s, want the connection", p.ParentSpanID)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case mcp.ExitEvent:
		return "ExitEvent"
	case mcp.StateEvent:
		return "StateEvent"
	}
	return "other"
}
