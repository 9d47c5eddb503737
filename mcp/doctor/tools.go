package doctor

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// specToolName says whether a tool name is what the spec allows:
// ^[A-Za-z0-9_.-]{1,128}$.
func specToolName(name string) bool { return clients.ASCIIName(name, 128, "_.-") }

// tool checks one tools/list entry.
func (l *Linter) tool(f *mcp.Frame, ls *listState, raw json.RawMessage) {
	t := object(raw)
	name, ok := str(t, "name")
	if !ok {
		l.report("tools/input-schema-not-object", fmt.Sprintf("A tool has no string name: %s", preview([]byte(compact(raw)))), f.Seq)
		return
	}
	if prev := l.tools[name]; prev != nil {
		name = prev.name
	}
	label := QuoteName(name)
	l.appTool(f, name, raw)
	for _, k := range []string{"name", "title", "description"} {
		if s, ok := str(t, k); ok {
			l.controlChars(f, "tool "+label+" "+k, s)
		}
	}
	// One finding per name: a name the spec already rejects is not
	// reported again by the Claude profile; its message says Claude too.
	if !specToolName(name) {
		msg := fmt.Sprintf("Tool name %s (%d characters) is outside [A-Za-z0-9_.-]{1,128}.", label, len(name))
		if _, whole := CutName(name); !whole {
			msg = fmt.Sprintf("Tool name %s is outside [A-Za-z0-9_.-]{1,128}.", label)
		}
		if l.opts.Profile == ProfileClaude {
			msg += " The Anthropic API, which allows only [a-zA-Z0-9_-]{1,64}, rejects it too."
		}
		l.report("tools/name-characters", msg, f.Seq)
	} else if !clients.AnthropicToolName(name) {
		l.report("profile/claude-tool-name", fmt.Sprintf("Tool name %s does not match [a-zA-Z0-9_-]{1,64}, which the Anthropic API requires.", label), f.Seq)
	}
	if first, dup := ls.names[name]; dup {
		l.report("tools/duplicate-name", fmt.Sprintf("Tool name %s appears twice in one listing.", label), first, f.Seq)
	} else if len(ls.names) < 100000 {
		ls.names[name] = f.Seq
	}

	in, hasIn := t["inputSchema"]
	switch {
	case !hasIn || jsonKind(in) == "null":
		l.report("tools/input-schema-not-object", fmt.Sprintf("Tool %s has no inputSchema.", label), f.Seq)
	case !isObject(in):
		l.report("tools/input-schema-not-object", fmt.Sprintf("Tool %s has an inputSchema that is %s, not a schema object.", label, jsonKind(in)), f.Seq)
	default:
		if typ, _ := str(object(in), "type"); typ != "object" {
			l.report("tools/input-schema-not-object", fmt.Sprintf(`Tool %s has an inputSchema whose root type is %s, not "object".`, label, compactOr(object(in)["type"], "missing")), f.Seq)
		}
		l.schemaRules(f, label, "inputSchema", in)
		l.toolShapeRules(f, label, "inputSchema", in)
	}
	if len(l.toolOrder) < 10000 {
		l.toolOrder = append(l.toolOrder, name)
	}

	info := &toolInfo{name: name}
	if out, ok := t["outputSchema"]; ok && jsonKind(out) != "null" {
		if typ, _ := str(object(out), "type"); !l.modern && typ != "object" {
			l.report("tools/output-schema-not-object", fmt.Sprintf(`Tool %s has an outputSchema whose root is not type "object".`, label), f.Seq)
		}
		if l.schemaRules(f, label, "outputSchema", out) {
			info.outputSchema = out
		}
		l.toolShapeRules(f, label, "outputSchema", out)
	}
	if exec := object(t["execution"]); exec != nil {
		if ts, _ := str(exec, "taskSupport"); ts == "required" && !l.hasServerCap("tasks", "requests", "tools", "call") {
			l.report("tools/task-support-without-capability", fmt.Sprintf(`Tool %s requires task execution, but the server does not declare tasks.requests.tools.call.`, label), f.Seq)
		}
	}
	if ann := object(t["annotations"]); ann != nil {
		if string(ann["readOnlyHint"]) == "true" && string(ann["destructiveHint"]) == "true" {
			l.report("tools/contradictory-annotations", fmt.Sprintf("Tool %s claims to be both read-only and destructive.", label), f.Seq)
		}
	}
	if _, known := l.tools[name]; known || len(l.tools) < 10000 {
		l.tools[name] = info
	}
}

func compactOr(raw json.RawMessage, missing string) string {
	if raw == nil {
		return missing
	}
	return compact(raw)
}

// schemaRules compiles a tool schema and reports why it cannot be used. It
// reports whether the schema is usable for validation.
func (l *Linter) schemaRules(f *mcp.Frame, label, which string, raw json.RawMessage) bool {
	if !isObject(raw) && jsonKind(raw) != "a boolean" {
		l.report("tools/invalid-schema", fmt.Sprintf("Tool %s has an %s that is %s, not a schema.", label, which, jsonKind(raw)), f.Seq)
		return false
	}
	if _, fault := compileSchema(raw); fault != nil {
		l.report(fault.rule, fmt.Sprintf("Tool %s has an unusable %s: %s.", label, which, fault.detail), f.Seq)
		return false
	}
	return true
}

// toolResult checks a tools/call result: its content blocks, and its
// structuredContent against the tool's outputSchema.
func (l *Linter) toolResult(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	var blocks []json.RawMessage
	if raw, ok := res["content"]; ok {
		var isArray bool
		if blocks, isArray = jsonview.Array(raw); !isArray && !isNull(raw) {
			l.report("content/invalid", fmt.Sprintf("The result of tools/call %s has content that is %s, not an array.", QuoteName(req.toolName), jsonKind(raw)), f.Seq, f.ReplyTo)
		}
	} else if _, modernTask := res["resultType"]; !modernTask {
		l.report("content/invalid", fmt.Sprintf("The result of tools/call %s has no content array.", QuoteName(req.toolName)), f.Seq, f.ReplyTo)
	}
	l.contentBlocks(f, "the result of tools/call "+QuoteName(req.toolName), blocks)
	if rt, _ := str(res, "resultType"); rt == "input_required" || rt == "task" {
		return
	}
	if string(res["isError"]) == "true" {
		return
	}
	label := QuoteName(req.toolName)
	sc, hasSC := res["structuredContent"]
	if hasSC && !l.modern && !isObject(sc) {
		l.report("tools/structured-content-mismatch", fmt.Sprintf("Tool %s returned structuredContent that is %s; before 2026-07-28 it must be an object.", label, jsonKind(sc)), f.Seq, f.ReplyTo)
	}
	if info := l.tools[req.toolName]; info != nil && info.outputSchema != nil {
		if !hasSC {
			l.report("tools/structured-content-mismatch", fmt.Sprintf("Tool %s declares an outputSchema but its successful result has no structuredContent.", label), f.Seq, f.ReplyTo)
		} else if sch := info.compiledOutput(); sch != nil {
			if why := validate(sch, sc); why != "" {
				l.report("tools/structured-content-mismatch", fmt.Sprintf("Tool %s returned structuredContent that does not match its outputSchema: %s.", label, why), f.Seq, f.ReplyTo)
			}
		}
	}
	if hasSC && !hasTextCopy(blocks, sc) {
		texts := textBlocks(blocks)
		if len(texts) == 0 {
			l.report("tools/missing-text-fallback", fmt.Sprintf("Tool %s returned structuredContent and no text block, so clients that do not read structuredContent show an empty result.", label), f.Seq, f.ReplyTo)
		} else if d := l.report("tools/missing-text-fallback", fmt.Sprintf("Tool %s returned structuredContent and a text block (%s) that is not the same JSON.", label, preview([]byte(texts[0]))), f.Seq, f.ReplyTo); d != nil {
			d.Why = "Clients that do not read structuredContent (older ones, and most model integrations) see only the text block; that works when the text says the same, but data that is only in structuredContent never reaches them, and the spec asks for the serialized JSON."
		}
	}
}

// textBlocks returns the text of each text content block.
func textBlocks(blocks []json.RawMessage) []string {
	var out []string
	for _, b := range blocks {
		blk := object(b)
		if typ, _ := str(blk, "type"); typ == "text" {
			text, _ := str(blk, "text")
			out = append(out, text)
		}
	}
	return out
}

// hasTextCopy reports whether a text block carries JSON equal to sc.
func hasTextCopy(blocks []json.RawMessage, sc json.RawMessage) bool {
	var want any
	if json.Unmarshal(sc, &want) != nil {
		return false
	}
	for _, b := range blocks {
		blk := object(b)
		if typ, _ := str(blk, "type"); typ != "text" {
			continue
		}
		text, _ := str(blk, "text")
		var got any
		if json.Unmarshal([]byte(text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

// compiledOutput is the tool's outputSchema compiled (nil when it does not
// compile; schemaRules has reported why when it was listed).
func (info *toolInfo) compiledOutput() *schema.Schema {
	if info.output == nil {
		sch, fault := compileSchema(info.outputSchema)
		if fault != nil {
			return nil
		}
		info.output = sch
	}
	return info.output
}
