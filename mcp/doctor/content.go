package doctor

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// contentBlocks checks content blocks (tool results, prompt messages)
// against the schema and the negotiated version.
func (l *Linter) contentBlocks(f *mcp.Frame, where string, blocks []json.RawMessage) {
	var problems, versionProblems []string
	for i, raw := range blocks {
		b := object(raw)
		if b == nil {
			problems = append(problems, fmt.Sprintf("block %d is %s, not an object", i, jsonKind(raw)))
			continue
		}
		typ, _ := str(b, "type")
		switch typ {
		case "text":
			if !isStr(b, "text") {
				problems = append(problems, fmt.Sprintf("text block %d has no string text", i))
			}
		case "image", "audio":
			if typ == "audio" && !l.modern && l.version != "" && l.version < mcp.Version20250326 {
				versionProblems = append(versionProblems, fmt.Sprintf("block %d is audio, which %s lacks", i, l.version))
			}
			if p := base64Problem(b, "data"); p != "" {
				problems = append(problems, fmt.Sprintf("%s block %d %s", typ, i, p))
			}
			if mt, _ := str(b, "mimeType"); mt == "" {
				problems = append(problems, fmt.Sprintf("%s block %d has no mimeType", typ, i))
			}
		case "resource_link":
			if !l.modern && l.version != "" && l.version < mcp.Version20250618 {
				versionProblems = append(versionProblems, fmt.Sprintf("block %d is resource_link, which %s lacks", i, l.version))
			}
			if uri, _ := str(b, "uri"); uri == "" {
				problems = append(problems, fmt.Sprintf("resource_link block %d has no uri", i))
			}
		case "resource":
			if p := resourceContentsProblem(object(b["resource"])); p != "" {
				problems = append(problems, fmt.Sprintf("resource block %d %s", i, p))
			}
		case "":
			problems = append(problems, fmt.Sprintf("block %d has no type", i))
		default:
			problems = append(problems, fmt.Sprintf("block %d has unknown type %q", i, typ))
		}
	}
	if len(problems) > 0 {
		l.report("content/invalid", fmt.Sprintf("Content in %s is malformed: %s.", where, strings.Join(problems, "; ")), f.Seq, f.ReplyTo)
	}
	if len(versionProblems) > 0 {
		l.report("content/type-not-in-version", fmt.Sprintf("Content in %s uses types the negotiated version does not have: %s.", where, strings.Join(versionProblems, "; ")), f.Seq, f.ReplyTo)
	}
}

// base64Problem checks a base64 member; "" when fine.
func base64Problem(m map[string]json.RawMessage, key string) string {
	s, ok := str(m, key)
	if !ok {
		return "has no string " + key
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		if _, err2 := base64.RawStdEncoding.DecodeString(s); err2 != nil {
			return "has " + key + " that is not valid base64"
		}
	}
	return ""
}

// resourceContentsProblem checks one resource contents object: a uri and
// exactly one of text or blob.
func resourceContentsProblem(c map[string]json.RawMessage) string {
	if c == nil {
		return "has no resource contents object"
	}
	_, hasText := c["text"]
	_, hasBlob := c["blob"]
	switch {
	case hasText && hasBlob:
		return "has both text and blob"
	case !hasText && !hasBlob:
		return "has neither text nor blob"
	case hasBlob:
		if p := base64Problem(c, "blob"); p != "" {
			return p
		}
	}
	if _, ok := str(c, "uri"); !ok {
		return "has no uri"
	}
	return ""
}

func (l *Linter) readResult(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	if rt, _ := str(res, "resultType"); rt == "input_required" {
		return
	}
	var contents []json.RawMessage
	if json.Unmarshal(res["contents"], &contents) != nil {
		l.report("content/invalid", fmt.Sprintf("The resources/read result has contents that is %s, not an array.", jsonKind(res["contents"])), f.Seq, f.ReplyTo)
		return
	}
	var problems []string
	for i, c := range contents {
		if p := resourceContentsProblem(object(c)); p != "" {
			problems = append(problems, fmt.Sprintf("entry %d %s", i, p))
		}
	}
	if len(problems) > 0 {
		l.report("content/invalid", "The resources/read result is malformed: "+strings.Join(problems, "; ")+".", f.Seq, f.ReplyTo)
	}
	l.appRead(f, req, contents)
}

func (l *Linter) promptResult(f *mcp.Frame, res map[string]json.RawMessage) {
	if rt, _ := str(res, "resultType"); rt == "input_required" {
		return
	}
	var messages []struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(res["messages"], &messages)
	blocks := make([]json.RawMessage, 0, len(messages))
	for _, m := range messages {
		if m.Content != nil {
			blocks = append(blocks, m.Content)
		}
	}
	l.contentBlocks(f, "the prompts/get messages", blocks)
}

func (l *Linter) completionResult(f *mcp.Frame, res map[string]json.RawMessage) {
	var c struct {
		Values []json.RawMessage `json:"values"`
	}
	_ = json.Unmarshal(res["completion"], &c)
	if len(c.Values) > 100 {
		l.report("completion/too-many-values", fmt.Sprintf("completion/complete returned %d values; at most 100 are allowed.", len(c.Values)), f.Seq, f.ReplyTo)
	}
}
