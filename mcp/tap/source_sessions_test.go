package tap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// In a capture whose client sessions interleave, the viewer's doctor
// and title follow each frame's session: Claude Code's tool listing is
// judged by the Claude profile even when another client's handshake came
// between its handshake and that listing, another client's is not, and
// the title names the client of the latest frame's session.
func TestViewerDoctorAndTitleFollowTheClientSession(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	var lines []string
	seq := 0
	frame := func(session int, dir, kind, method, id string, replyTo int, raw string) {
		seq++
		e := fmt.Sprintf(`{"type":"frame","time":%q,"seq":%d,"dir":%q,"transport":"http","kind":%q`,
			at.Add(time.Duration(seq)*time.Millisecond).Format(time.RFC3339Nano), seq, dir, kind)
		if method != "" {
			e += fmt.Sprintf(`,"method":%q`, method)
		}
		if id != "" {
			e += fmt.Sprintf(`,"id":%q`, id)
		}
		if replyTo != 0 {
			e += fmt.Sprintf(`,"replyTo":%d`, replyTo)
		}
		raw = strings.TrimSpace(raw)
		e += fmt.Sprintf(`,"raw":%q,"clientSession":%d}`, raw, session)
		lines = append(lines, e)
	}
	hello := func(session int, client string) {
		frame(session, "out", "request", "initialize", "1", 0,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+client+`","version":"1.0"}}}`)
		frame(session, "in", "response", "", "1", seq,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		// As the tap's recorder writes it (record.FromEvent).
		ev := mcp.HandshakeEvent{Time: at.Add(time.Duration(seq) * time.Millisecond), ClientSession: session,
			Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: "2025-11-25", ServerInfo: mcp.Implementation{Name: "s", Version: "1"}}}
		b, err := json.Marshal(record.FromEvent(ev))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	// A tool name the spec allows and the Anthropic API does not.
	list := func(session int) {
		frame(session, "out", "request", "tools/list", "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		frame(session, "in", "response", "", "2", seq,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"files.read","inputSchema":{"type":"object"}}]}}`)
	}
	lines = append(lines, fmt.Sprintf(`{"type":"session","time":%q,"format":1,"mcpscope":"test","target":"shared","recorder":"tap"}`, at.Format(time.RFC3339Nano)))
	hello(1, "claude-code")
	hello(2, "opencode")
	list(1)
	list(2)
	frame(1, "out", "notification", "notifications/cancelled", "", 0, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	file := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	src := NewSource(Listed{Info: Info{File: file, Transport: "http"}})
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var claude []int64
	var handshakes []int
	for ev := range src.Events() {
		if d, ok := ev.(mcp.DiagnosticEvent); ok && d.Diagnostic.Rule == "profile/claude-tool-name" {
			claude = append(claude, d.Diagnostic.Frames...)
		}
		if h, ok := ev.(mcp.HandshakeEvent); ok {
			handshakes = append(handshakes, h.ClientSession)
		}
	}
	_ = src.Close()
	// Frames 6 (Claude Code's listing) and 8 (opencode's).
	if len(claude) != 1 || claude[0] != 6 {
		t.Errorf("the Claude profile judged frames %v, want only Claude Code's listing (6)", claude)
	}
	if name := src.TransportName(); !strings.Contains(name, "claude-code 1.0 (claude profile)") || !strings.Contains(name, "client session 1 of 2") {
		t.Errorf("the title is %q, want Claude Code's session 1 of 2 (its frame is the latest)", name)
	}
	if name := src.TransportNameOf(2); !strings.Contains(name, "opencode 1.0") || !strings.Contains(name, "client session 2 of 2") {
		t.Errorf("client session 2's title is %q, want opencode's session 2 of 2", name)
	}
	if fmt.Sprint(handshakes) != "[1 2]" {
		t.Errorf("the handshakes came for client sessions %v, want [1 2]", handshakes)
	}
}
