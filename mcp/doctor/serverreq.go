package doctor

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp"
)

// samplingRequest checks sampling/createMessage against the client's
// sampling capability and the tool-use pairing rule.
func (l *Linter) samplingRequest(f *mcp.Frame, params map[string]json.RawMessage) {
	if !l.hasClientCap("sampling") {
		l.report("sampling/without-capability", "The server sent sampling/createMessage, but the client declared no sampling capability.", f.Seq)
		return
	}
	_, hasTools := params["tools"]
	_, hasChoice := params["toolChoice"]
	if (hasTools || hasChoice) && !l.hasClientCap("sampling", "tools") {
		l.report("sampling/without-capability", "The server sent a tool-enabled sampling request, but the client did not declare sampling.tools.", f.Seq)
	}
	if ic, _ := str(params, "includeContext"); (ic == "thisServer" || ic == "allServers") && !l.hasClientCap("sampling", "context") {
		l.report("sampling/include-context", fmt.Sprintf("The server asked for includeContext %q, but the client did not declare sampling.context.", ic), f.Seq)
	}
	if p := toolPairingProblem(params["messages"]); p != "" {
		l.report("sampling/tool-result-pairing", "The sampling messages break tool-use pairing: "+p+".", f.Seq)
	}
}

type samplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type samplingBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ToolUseID string `json:"toolUseId"`
}

func blocksOf(raw json.RawMessage) []samplingBlock {
	var many []samplingBlock
	if json.Unmarshal(raw, &many) == nil {
		return many
	}
	var one samplingBlock
	if json.Unmarshal(raw, &one) == nil {
		return []samplingBlock{one}
	}
	return nil
}

// toolPairingProblem checks that every assistant tool_use is followed by a
// user message holding only the matching tool_result blocks.
func toolPairingProblem(raw json.RawMessage) string {
	var msgs []samplingMessage
	if json.Unmarshal(raw, &msgs) != nil {
		return ""
	}
	for i, m := range msgs {
		var uses []string
		for _, b := range blocksOf(m.Content) {
			if b.Type == "tool_use" {
				uses = append(uses, b.ID)
			}
		}
		if len(uses) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			continue // the last message may be a pending tool_use
		}
		next := msgs[i+1]
		results := map[string]bool{}
		for _, b := range blocksOf(next.Content) {
			if b.Type != "tool_result" {
				return fmt.Sprintf("message %d mixes tool_result with %q content", i+1, b.Type)
			}
			results[b.ToolUseID] = true
		}
		if next.Role != "user" {
			return fmt.Sprintf("message %d follows a tool_use but has role %q", i+1, next.Role)
		}
		for _, id := range uses {
			if !results[id] {
				return fmt.Sprintf("tool_use %q in message %d has no tool_result in message %d", id, i, i+1)
			}
		}
	}
	return ""
}

var sensitiveField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(pass(word|wd)?|secret|token|api[_-]?key|apikey|credential|private[_-]?key|ssn|credit[_-]?card)`)
})

// elicitationRequest checks elicitation/create: the client's capability and
// modes, the form schema's shape, and URL mode's required fields.
func (l *Linter) elicitationRequest(f *mcp.Frame, params map[string]json.RawMessage) {
	if !l.hasClientCap("elicitation") {
		l.report("elicitation/without-capability", "The server sent elicitation/create, but the client declared no elicitation capability.", f.Seq)
		return
	}
	mode, _ := str(params, "mode")
	if mode == "" {
		mode = "form"
	}
	declared := l.clientCaps == nil || hasPath(l.clientCaps, "elicitation", mode) ||
		mode == "form" && !hasPath(l.clientCaps, "elicitation", "url") // {} means form only
	if !declared {
		l.report("elicitation/without-capability", fmt.Sprintf("The server asked for %s-mode elicitation, which the client did not declare.", mode), f.Seq)
	}
	switch mode {
	case "url":
		var missing []string
		if u, _ := str(params, "url"); u == "" {
			missing = append(missing, "url")
		}
		id, _ := str(params, "elicitationId")
		if id == "" && l.version == mcp.Version20251125 {
			missing = append(missing, "elicitationId")
		}
		if id != "" {
			l.elicitationIDs.add(id)
		}
		if len(missing) > 0 {
			l.report("elicitation/url-mode-fields", "A URL-mode elicitation lacks "+strings.Join(missing, " and ")+".", f.Seq)
		}
	default:
		l.formSchema(f, params["requestedSchema"])
	}
}

func (l *Linter) formSchema(f *mcp.Frame, raw json.RawMessage) {
	s := object(raw)
	if s == nil {
		l.report("elicitation/schema-not-flat", fmt.Sprintf("The form's requestedSchema is %s, not an object schema.", jsonKind(raw)), f.Seq)
		return
	}
	if typ, _ := str(s, "type"); typ != "object" {
		l.report("elicitation/schema-not-flat", `The form's requestedSchema is not of type "object".`, f.Seq)
	}
	props := object(s["properties"])
	var nested, secrets []string
	for name, p := range props {
		prop := object(p)
		typ, _ := str(prop, "type")
		switch typ {
		case "string", "number", "integer", "boolean":
		case "array":
			items := object(prop["items"])
			_, hasEnum := items["enum"]
			_, hasAnyOf := items["anyOf"]
			if !hasEnum && !hasAnyOf {
				nested = append(nested, name+" (array of non-enum items)")
			}
		default:
			_, hasEnum := prop["enum"]
			_, hasOneOf := prop["oneOf"]
			if !hasEnum && !hasOneOf {
				nested = append(nested, fmt.Sprintf("%s (type %s)", name, compactOr(prop["type"], "missing")))
			}
		}
		if sensitiveField().MatchString(name) {
			secrets = append(secrets, name)
		}
	}
	if len(nested) > 0 {
		l.report("elicitation/schema-not-flat", "The form has fields that are not primitive or enum: "+strings.Join(nested, ", ")+".", f.Seq)
	}
	if len(secrets) > 0 {
		l.report("elicitation/sensitive-form-field", "The form asks for fields that look like secrets: "+strings.Join(secrets, ", ")+".", f.Seq)
	}
}

func (l *Linter) elicitationComplete(f *mcp.Frame, params map[string]json.RawMessage) {
	id, _ := str(params, "elicitationId")
	if !l.elicitationIDs.has(id) {
		l.report("elicitation/unknown-completion", fmt.Sprintf("notifications/elicitation/complete names elicitationId %q, which no URL-mode elicitation used.", id), f.Seq)
	}
}

// urlElicitationRequired checks a -32042 error's data.
func (l *Linter) urlElicitationRequired(f *mcp.Frame, e map[string]json.RawMessage) {
	if f.ErrorCode != mcp.CodeURLElicitationRequired || l.modern {
		return
	}
	var data struct {
		Elicitations []map[string]json.RawMessage `json:"elicitations"`
	}
	if json.Unmarshal(e["data"], &data) != nil || len(data.Elicitations) == 0 {
		l.report("elicitation/url-required-data", "A -32042 error has no data.elicitations list.", f.Seq)
		return
	}
	for i, el := range data.Elicitations {
		mode, _ := str(el, "mode")
		id, _ := str(el, "elicitationId")
		if mode != "url" || id == "" {
			l.report("elicitation/url-required-data", fmt.Sprintf("Entry %d of a -32042 error's data.elicitations is not a URL-mode elicitation with an elicitationId.", i), f.Seq)
			return
		}
		l.elicitationIDs.add(id)
	}
}
