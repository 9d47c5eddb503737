package panes

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// logFilter is a parsed filter expression: space-separated terms, all of
// which must match. Tokens narrow by field; anything else is free text.
//
//	method:tools/      method (or replied-to method) contains "tools/"
//	dir:in | dir:out   direction
//	kind:request|response|error|notification|invalid|batch   frames
//	                   (kind:error also finds tools/call results that say
//	                   isError: the calls that failed, as the exchanges
//	                   view marks them)
//	kind:transport|http|sse|reconnect|oauth|websocket|process|app  transport rows
//	                   (app: a tool view's bridge messages, CSP violations,
//	                   console errors, as the preview saw them)
//	kind:stderr|state|note|local|exit                          other rows
//	id:3               the JSON-RPC id, exactly
//	session:2          client session 2 of a tap carrying several (its
//	                   frames and HTTP requests)
//	-field:value       leaves out what field:value matches (-kind:http hides
//	                   the HTTP exchanges, -method:notifications/ the
//	                   notifications); a row without that field stays
//	anything else      case-insensitive text in the method, error message,
//	                   problem, stderr line or state detail, or (for frames
//	                   up to 64 kB) the raw bytes
type logFilter struct {
	methods  []string
	dirs     []mcp.Direction
	kinds    []string // canonical kind names, see canonicalKind
	ids      []string
	sessions []int    // client sessions (Frame.ClientSession)
	words    []string // lower-cased

	// not holds the negated terms (its words are unused).
	not *logFilter
}

// maxRawSearch bounds free-text search in raw bytes, so typing in the
// filter stays instant even with many huge frames in the log.
const maxRawSearch = 64 << 10

func parseLogFilter(expr string) logFilter {
	var f logFilter
	for _, term := range strings.Fields(expr) {
		into := &f
		field := term
		if neg, ok := strings.CutPrefix(term, "-"); ok && strings.Contains(neg, ":") {
			if f.not == nil {
				f.not = &logFilter{}
			}
			into, field = f.not, neg
		}
		if into.addField(field) {
			continue
		}
		f.words = append(f.words, strings.ToLower(term))
	}
	return f
}

// addField adds a field:value term, reporting false for anything else.
func (f *logFilter) addField(term string) bool {
	name, val, ok := strings.Cut(term, ":")
	if !ok || val == "" {
		return false
	}
	switch strings.ToLower(name) {
	case "method", "m":
		f.methods = append(f.methods, strings.ToLower(val))
		return true
	case "dir", "d":
		switch strings.ToLower(val) {
		case "in", "inbound", "<", "←":
			f.dirs = append(f.dirs, mcp.Inbound)
			return true
		case "out", "outbound", ">", "→":
			f.dirs = append(f.dirs, mcp.Outbound)
			return true
		}
	case "kind", "k":
		if k, ok := canonicalKind(val); ok {
			f.kinds = append(f.kinds, k)
			return true
		}
	case "id":
		f.ids = append(f.ids, val)
		return true
	case "session":
		if n, err := strconv.Atoi(val); err == nil && n > 0 {
			f.sessions = append(f.sessions, n)
			return true
		}
	}
	return false
}

// canonicalKind names a row kind: a frame's ("request", "error", ...), a
// transport step's ("transport" for all of them, or "http", "sse", ...),
// or another row's ("stderr", "state", "note", "local", "exit").
func canonicalKind(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "request", "req":
		return "request", true
	case "response", "resp", "result":
		return "response", true
	case "error", "err":
		return "error", true
	case "notification", "notif":
		return "notification", true
	case "invalid", "inval":
		return "invalid", true
	case "batch":
		return "batch", true
	case "transport", "tr":
		return "transport", true
	case "http", "sse", "reconnect", "oauth", "websocket", "process", "app":
		return strings.ToLower(s), true
	case "ws":
		return "websocket", true
	case "stderr":
		return "stderr", true
	case "state":
		return "state", true
	case "note":
		return "note", true
	case "local", "timeout", "cancelled":
		return "local", true
	case "exit":
		return "exit", true
	}
	return "", false
}

// kindOf is the entry's kind as canonicalKind names it, and for a
// transport step also "transport", for a tools/call result that says
// isError also "error".
func (e *entryView) kindOf() (string, string) {
	switch e.kind {
	case entryFrame:
		if e.toolErr {
			return e.frame.Kind.String(), "error"
		}
		return e.frame.Kind.String(), ""
	case entryTransport:
		return strings.ToLower(e.tr.Kind), "transport"
	case entryStderr:
		return "stderr", ""
	case entryState:
		return "state", ""
	case entryNote:
		return "note", ""
	case entryLocalError:
		return "local", ""
	case entryExit:
		return "exit", ""
	}
	return "", ""
}

func (f *logFilter) active() bool {
	return len(f.methods)+len(f.dirs)+len(f.kinds)+len(f.ids)+len(f.sessions)+len(f.words) > 0 || f.not != nil
}

// frameFields reports whether the filter names frame fields (method,
// direction, id), which only frames can match.
func (f *logFilter) frameFields() bool {
	return len(f.methods)+len(f.dirs)+len(f.ids) > 0
}

func (f *logFilter) match(e *entryView) bool {
	if !f.active() {
		return true
	}
	if e.kind == entrySeparator {
		return true // sessions stay visibly apart whatever the filter
	}
	if f.not != nil && f.not.matchesAnyField(e) {
		return false
	}
	if len(f.kinds) > 0 {
		k, group := e.kindOf()
		if !containsString(f.kinds, k) && (group == "" || !containsString(f.kinds, group)) {
			return false
		}
	}
	if len(f.sessions) > 0 && !slices.Contains(f.sessions, e.clientSession()) {
		return false
	}
	fr := e.frame
	if fr == nil {
		if f.frameFields() {
			return false
		}
		return f.matchWords(e.entryText(), nil)
	}
	if len(f.dirs) > 0 && !containsDir(f.dirs, fr.Dir) {
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

func (e *entryView) entryText() string {
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

// clientSession is the client session of a frame or an HTTP request
// (0: none named).
func (e *entryView) clientSession() int {
	switch {
	case e.frame != nil:
		return e.frame.ClientSession
	case e.kind == entryTransport && e.tr != nil:
		return e.tr.ClientSession
	}
	return 0
}

func containsDir(s []mcp.Direction, d mcp.Direction) bool {
	for _, x := range s {
		if x == d {
			return true
		}
	}
	return false
}

// matchesAnyField reports whether any of the (negated) field terms
// matches the entry. A term about a field the entry lacks (the method of
// a stderr line) does not match it: -method:ping hides pings, not stderr.
func (f *logFilter) matchesAnyField(e *entryView) bool {
	k, group := e.kindOf()
	if containsString(f.kinds, k) || (group != "" && containsString(f.kinds, group)) {
		return true
	}
	if n := e.clientSession(); n != 0 && slices.Contains(f.sessions, n) {
		return true
	}
	fr := e.frame
	if fr == nil {
		return false
	}
	if containsDir(f.dirs, fr.Dir) || (len(f.ids) > 0 && containsString(f.ids, fr.ID.String())) {
		return true
	}
	if len(f.methods) > 0 {
		m := strings.ToLower(fr.Method + " " + fr.ReplyToMethod)
		for _, want := range f.methods {
			if strings.Contains(m, want) {
				return true
			}
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

// ViewedSession is the client session the log is looking at, in a
// capture that numbers them: the one the filter names alone, else the
// selected row's while the log is paused; 0 when none is (the latest is
// then what the header describes).
func (l *Log) ViewedSession() int {
	if len(l.filter.sessions) == 1 {
		return l.filter.sessions[0]
	}
	if l.follow {
		return 0
	}
	cur := l.cursor()
	if cur < 0 {
		return 0
	}
	return l.rowView(&l.entries[l.shown[cur]]).clientSession()
}
