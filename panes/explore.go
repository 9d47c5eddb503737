package panes

import (
	"encoding/json"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// Messages the explorer panes (resources, prompts, server log, activity,
// roots) send to the root model, which runs the request as a Cmd and feeds
// the outcome back by method call.

// ListPageMsg asks for one page of a list method (Cursor "" is the first).
type ListPageMsg struct {
	Method string
	Cursor string
}

// ReadResourceMsg asks for resources/read.
type ReadResourceMsg struct{ URI string }

// SubscribeMsg asks for resources/subscribe (On) or resources/unsubscribe.
type SubscribeMsg struct {
	URI string
	On  bool
}

// SaveBlobMsg asks the root to write bytes to a new file: a resource's
// blob, a result, a media block. The file is named from Name (or the last
// segment of URI when Name is empty), made safe, with an extension from
// MimeType; URI says what was saved.
type SaveBlobMsg struct {
	URI      string
	Name     string
	MimeType string
	Data     []byte
}

// GetPromptMsg asks for prompts/get.
type GetPromptMsg struct {
	Name string
	Args map[string]string
}

// SetLevelMsg asks for a logging level: logging/setLevel in the legacy era,
// the per-request _meta logLevel in the modern era.
type SetLevelMsg struct{ Level string }

// CancelOpMsg asks the root to cancel one of its requests in flight.
type CancelOpMsg struct{ ID int }

// TaskResultMsg asks for tasks/result; TaskCancelMsg for tasks/cancel.
type TaskResultMsg struct{ TaskID string }

// TaskCancelMsg asks for tasks/cancel.
type TaskCancelMsg struct{ TaskID string }

// SendAnywayMsg asks to list although the server did not declare the
// capability (a debugger may; a correct client would not).
type SendAnywayMsg struct{ Method string }

// Gate is what the server's capabilities allow a pane to do.
type Gate struct {
	OK  bool
	Why string // why not, in words: which capability is missing
}

// gateLines explains a missing capability and offers to send anyway,
// wrapped to w cells (never cut: it is the pane's only explanation).
func gateLines(t *themes.Theme, g Gate, anywayKey string, w int) []string {
	var out []string
	for _, l := range wrapWords("⚠ "+g.Why, w, 2) {
		out = append(out, t.Form.Warn.Render(l))
	}
	for _, l := range wrapWords("A correct client never calls what the server did not declare. This is a debugger: press "+anywayKey+" to send anyway.", w, 0) {
		out = append(out, t.Form.Hint.Render(l))
	}
	return out
}

// unlistedLines says why a list is not there and will not come, wrapped
// to w cells: an absence never looks like an empty list, nor like one on
// its way.
func unlistedLines(t *themes.Theme, why string, w int) []string {
	var out []string
	for _, l := range wrapWords(why, w, 0) {
		out = append(out, t.Form.Warn.Render(l))
	}
	return out
}

// selRow renders a list row, highlighted when selected.
func selRow(t *themes.Theme, s string, w int, selected bool) string {
	if selected {
		return t.Tools.Selected.Render(Fit("▸ "+s, w))
	}
	return "  " + s
}

// TemplateVars lists the variables of an RFC 6570 URI template, in order,
// without operators or modifiers ("{+path}", "{id*}", "{?a,b}").
func TemplateVars(tmpl string) []string {
	var vars []string
	seen := map[string]bool{}
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return vars
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return vars
		}
		expr := strings.TrimLeft(tmpl[i+1:i+j], "+#./;?&")
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimSuffix(v, "*")
			if k := strings.IndexByte(v, ':'); k >= 0 {
				v = v[:k]
			}
			if v != "" && !seen[v] {
				seen[v] = true
				vars = append(vars, v)
			}
		}
		tmpl = tmpl[i+j+1:]
	}
}

// ExpandTemplate fills a URI template's simple and reserved expressions
// (the forms MCP servers use). Query expressions become ?a=x&b=y.
func ExpandTemplate(tmpl string, vals map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		expr := tmpl[i+1 : i+j]
		op := ""
		if expr != "" && strings.ContainsRune("+#./;?&", rune(expr[0])) {
			op, expr = expr[:1], expr[1:]
		}
		var parts []string
		for _, v := range strings.Split(expr, ",") {
			name := strings.TrimSuffix(v, "*")
			if k := strings.IndexByte(name, ':'); k >= 0 {
				name = name[:k]
			}
			val := vals[name]
			if op != "+" && op != "#" {
				val = escapeURIComponent(val)
			}
			if op == "?" || op == "&" {
				parts = append(parts, name+"="+val)
			} else {
				parts = append(parts, val)
			}
		}
		switch op {
		case "?":
			b.WriteString("?" + strings.Join(parts, "&"))
		case "&":
			b.WriteString("&" + strings.Join(parts, "&"))
		case "/", ".", "#":
			b.WriteString(op + strings.Join(parts, op))
		default:
			b.WriteString(strings.Join(parts, ","))
		}
		tmpl = tmpl[i+j+1:]
	}
}

func escapeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hexByte(c)))
		}
	}
	return b.String()
}

func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// rawName reads a display field from a raw list item (for items that did not decode).
func rawName(raw json.RawMessage, keys ...string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return termsafe.String(s)
		}
	}
	return "?"
}

// foldRows folds an explorer list's rows at word boundaries and after
// '/' (a URI breaks between its segments), the later rows two cells in.
func foldRows(item func(i int) string) func(i, width int) string {
	return func(i, width int) string { return strings.Join(foldLine(item(i), width, 2), "\n") }
}

// listRows draws a list's rows on screen with the cursor's mark, the
// cursor's rows highlighted while focused; a wrapped item's later rows
// sit under its first. The list is two cells narrower than w (the mark).
func listRows(t *themes.Theme, l *list.Model, focused bool, w int) []string {
	cursor, prev := l.Cursor(), -1
	var out []string
	for _, r := range l.RenderRows() {
		sel := focused && r.Item == cursor
		row := selRow(t, r.Text, w, sel)
		if r.Item == prev {
			row = "  " + r.Text
			if sel {
				row = t.Tools.Selected.Render(Fit(row, w))
			}
		}
		prev = r.Item
		out = append(out, row)
	}
	return out
}
