package panes

import (
	"bytes"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// logFilter is a parsed filter expression: space-separated terms, all of
// which must match. Tokens narrow by field; anything else is free text.
//
//	method:tools/      method (or replied-to method) contains "tools/"
//	dir:in | dir:out   direction
//	kind:request|response|error|notification|invalid|batch
//	id:3               the JSON-RPC id, exactly
//	anything else      case-insensitive text in the method, error message,
//	                   problem, stderr line or state detail, or (for frames
//	                   up to 64 kB) the raw bytes
type logFilter struct {
	methods []string
	dirs    []mcp.Direction
	kinds   []mcp.Kind
	ids     []string
	words   []string // lower-cased
}

// maxRawSearch bounds free-text search in raw bytes, so typing in the
// filter stays instant even with many huge frames in the log.
const maxRawSearch = 64 << 10

func parseLogFilter(expr string) logFilter {
	var f logFilter
	for _, term := range strings.Fields(expr) {
		name, val, ok := strings.Cut(term, ":")
		if ok && val != "" {
			switch strings.ToLower(name) {
			case "method", "m":
				f.methods = append(f.methods, strings.ToLower(val))
				continue
			case "dir", "d":
				switch strings.ToLower(val) {
				case "in", "inbound", "<", "←":
					f.dirs = append(f.dirs, mcp.Inbound)
					continue
				case "out", "outbound", ">", "→":
					f.dirs = append(f.dirs, mcp.Outbound)
					continue
				}
			case "kind", "k":
				if k, ok := parseKind(val); ok {
					f.kinds = append(f.kinds, k)
					continue
				}
			case "id":
				f.ids = append(f.ids, val)
				continue
			}
		}
		f.words = append(f.words, strings.ToLower(term))
	}
	return f
}

func parseKind(s string) (mcp.Kind, bool) {
	switch strings.ToLower(s) {
	case "request", "req":
		return mcp.KindRequest, true
	case "response", "resp", "result":
		return mcp.KindResponse, true
	case "error", "err":
		return mcp.KindErrorResponse, true
	case "notification", "notif", "note":
		return mcp.KindNotification, true
	case "invalid", "inval":
		return mcp.KindInvalid, true
	case "batch":
		return mcp.KindBatch, true
	}
	return 0, false
}

func (f *logFilter) active() bool {
	return len(f.methods)+len(f.dirs)+len(f.kinds)+len(f.ids)+len(f.words) > 0
}

// fieldTokens reports whether the filter names frame fields, which only
// frames can match.
func (f *logFilter) fieldTokens() bool {
	return len(f.methods)+len(f.dirs)+len(f.kinds)+len(f.ids) > 0
}

func (f *logFilter) match(e *logEntry) bool {
	if !f.active() {
		return true
	}
	if e.kind == entrySeparator {
		return true // sessions stay visibly apart whatever the filter
	}
	fr := e.frame
	if fr == nil {
		if f.fieldTokens() {
			return false
		}
		return f.matchWords(e.entryText(), nil)
	}
	if len(f.dirs) > 0 && !containsDir(f.dirs, fr.Dir) {
		return false
	}
	if len(f.kinds) > 0 && !containsKind(f.kinds, fr.Kind) {
		return false
	}
	if len(f.ids) > 0 && !containsString(f.ids, fr.ID.String()) {
		return false
	}
	if len(f.methods) > 0 {
		m := strings.ToLower(fr.Method + " " + fr.ReplyToMethod)
		for _, want := range f.methods {
			if !strings.Contains(m, want) {
				return false
			}
		}
	}
	if len(f.words) == 0 {
		return true
	}
	var raw []byte
	if len(fr.Raw) <= maxRawSearch {
		raw = fr.Raw
	}
	return f.matchWords(strings.Join([]string{fr.Label(), fr.Method, fr.ID.String(), fr.ErrorMessage, fr.Problem, fr.Kind.String()}, " "), raw)
}

// matchWords wants every word in text (case-insensitively) or in raw.
func (f *logFilter) matchWords(text string, raw []byte) bool {
	text = strings.ToLower(text)
	for _, w := range f.words {
		if strings.Contains(text, w) {
			continue
		}
		if raw != nil && bytes.Contains(bytes.ToLower(raw), []byte(w)) {
			continue
		}
		return false
	}
	return true
}

func (e *logEntry) entryText() string {
	switch e.kind {
	case entryStderr:
		return "stderr " + e.text
	case entryState:
		return e.state.String() + " " + e.text
	case entryLocalError:
		if e.local != nil {
			return e.local.Kind.String() + " " + e.local.Method + " " + e.local.ID.String()
		}
	case entryExit:
		if e.exit != nil {
			return "exit " + e.exit.Error()
		}
	case entryTransport:
		text := e.tr.Kind + " " + e.tr.Summary
		for _, f := range e.tr.Fields {
			text += " " + f.Key + " " + f.Value
		}
		return text
	}
	return e.text
}

func containsDir(s []mcp.Direction, d mcp.Direction) bool {
	for _, x := range s {
		if x == d {
			return true
		}
	}
	return false
}

func containsKind(s []mcp.Kind, k mcp.Kind) bool {
	for _, x := range s {
		if x == k {
			return true
		}
	}
	return false
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v || strings.Trim(x, `"`) == strings.Trim(v, `"`) {
			return true
		}
	}
	return false
}
