package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// hostilePayload is what a hostile server puts in every string: OSC 52
// (write the clipboard), OSC 0 (retitle the window), an OSC 8 link, CSI
// 2J (clear the screen), a bare CR, the 8-bit CSI, a bidi override, a
// zero-width space, an isolate and DEL.
const hostilePayload = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b[2J\r\u009b2J\u202eevil\u200b\u2066\x7f"

// writeHostileSession writes a session file with the hostile payload in
// every field a server or a file controls: the header's target, command,
// directory and environment, states, stderr, serverInfo and instructions,
// a tool's name, description and schema, a tool result, an error, a frame
// that is not JSON, the exit. Its header names a command that would
// create marker.
func writeHostileSession(t *testing.T, path, marker string) {
	t.Helper()
	h := hostilePayload
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var lines []string
	add := func(e record.Entry) {
		at = at.Add(time.Millisecond)
		e.Time = at
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	seq := int64(0)
	frame := func(dir, kind, method, id string, msg any, replyTo int64) {
		raw, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		seq++
		add(record.Entry{Type: "frame", Seq: seq, Dir: dir, Transport: "stdio", Kind: kind, Method: method, ID: id, Size: len(s), Raw: &s, ReplyTo: replyTo})
	}
	tool := map[string]any{"name": "t" + h, "title": h, "description": h,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"p" + h: map[string]any{"type": "string", "description": h}}}}
	serverInfo := map[string]any{"name": "srv" + h, "title": h, "version": "1" + h}
	add(record.Entry{Type: "session", Format: 1, Mcpscope: "0.1.0-dev", Target: "sh -c evil" + h,
		Command: []string{"sh", "-c", "echo pwned > " + marker + " #" + h}, Cwd: filepath.Dir(marker),
		Env: map[string]string{"EVIL" + h: "value" + h}})
	add(record.Entry{Type: "state", State: "connecting", Detail: h})
	frame("out", "request", "initialize", "1", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}}}, 0)
	add(record.Entry{Type: "stderr", Line: "stderr" + h})
	frame("in", "response", "", "1", map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
		"serverInfo": serverInfo, "instructions": h}}, 1)
	frame("out", "notification", "notifications/initialized", "", map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, 0)
	si, _ := json.Marshal(serverInfo)
	add(record.Entry{Type: "handshake", Era: "legacy", Offered: "2025-11-25", ProtocolVersion: "2025-11-25", ServerInfo: si, Capabilities: json.RawMessage(`{"tools":{}}`)})
	add(record.Entry{Type: "state", State: "ready", Detail: h})
	frame("out", "request", "tools/list", "2", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": map[string]any{}}, 0)
	frame("in", "response", "", "2", map[string]any{"jsonrpc": "2.0", "id": 2, "result": map[string]any{"tools": []any{tool}}}, seq)
	add(record.Entry{Type: "list", Method: "tools/list", Count: 1, Pages: 1})
	frame("out", "request", "tools/call", "3", map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "t" + h, "arguments": map[string]any{"p" + h: h}}}, 0)
	frame("in", "response", "", "3", map[string]any{"jsonrpc": "2.0", "id": 3, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "result" + h}}, "isError": true}}, seq)
	frame("out", "request", "tools/call", "4", map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": map[string]any{"name": "add", "arguments": map[string]any{"a": 1, "b": 2}}}, 0)
	frame("in", "response", "", "4", map[string]any{"jsonrpc": "2.0", "id": 4, "error": map[string]any{"code": -32000, "message": "error" + h, "data": h}}, seq)
	raw := "not json" + h
	seq++
	add(record.Entry{Type: "frame", Seq: seq, Dir: "in", Transport: "stdio", Kind: "invalid", Size: len(raw), Raw: &raw, Problem: "not JSON" + h})
	code := 1
	add(record.Entry{Type: "exit", Code: &code, LastStderr: []string{"stderr" + h}})
	add(record.Entry{Type: "state", State: "closed", Detail: "exited" + h})
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
