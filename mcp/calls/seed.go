package calls

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/replay"
)

// FromRecording is one call per request the recorded client sent (the
// handshake aside), each with its recorded answer as its snapshot, named
// as replay labels them ("tools/call add", a second "tools/call add #2").
// Requests that got no answer (a timeout was recorded) are left out and
// counted in skipped. Each call is for the recorded server (the name it
// gave in its handshake).
func FromRecording(s *replay.Script) (out []Call, skipped int) {
	taken := map[string]bool{}
	server := recordedServer(s.Handshake)
	// next is the suffix to try first for a name already taken: 20,000
	// calls of one tool took 40 s when each tried " #2", " #3"... anew.
	next := map[string]int{}
	for _, req := range s.Requests {
		if req.Answer == nil || !isAnswer(req.Answer) {
			skipped++
			continue
		}
		name := strings.TrimSpace(req.Label)
		if taken[name] {
			i := max(next[name], 2)
			for taken[fmt.Sprintf("%s #%d", name, i)] {
				i++
			}
			next[name] = i + 1
			name = fmt.Sprintf("%s #%d", name, i)
		}
		c := Call{Name: name, Server: server, Method: req.Method, Expect: Expect{Snapshot: compact(req.Answer)}}
		if len(req.Params) > 0 && string(req.Params) != "null" {
			c.Params = compact(req.Params)
		}
		taken[c.Name] = true
		out = append(out, c)
	}
	return out, skipped
}

// UniqueName is name, or name with " #2", " #3"... when taken has it.
func UniqueName(name string, taken map[string]bool) string {
	name = strings.TrimSpace(name)
	if !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s #%d", name, i); !taken[n] {
			return n
		}
	}
}

// recordedServer is the name the recorded server gave itself in its
// handshake's answer ({"result": {"serverInfo": {"name": ...}}}), "" when
// it gave none.
func recordedServer(handshake json.RawMessage) string {
	result, _ := jsonview.Member(handshake, "result")
	info, ok := jsonview.Member(result, "serverInfo")
	if !ok {
		return ""
	}
	raw, ok := jsonview.Member(info, "name")
	if !ok {
		return ""
	}
	name, _ := jsonview.String(raw)
	return name
}
