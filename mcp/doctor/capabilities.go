package doctor

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
)

// methodCapability is the server capability that gates each client method.
var methodCapability = map[string][]string{
	mcp.MethodToolsList:             {"tools"},
	mcp.MethodToolsCall:             {"tools"},
	mcp.MethodPromptsList:           {"prompts"},
	mcp.MethodPromptsGet:            {"prompts"},
	mcp.MethodResourcesList:         {"resources"},
	mcp.MethodResourceTemplatesList: {"resources"},
	mcp.MethodResourcesRead:         {"resources"},
	mcp.MethodResourcesSubscribe:    {"resources", "subscribe"},
	mcp.MethodResourcesUnsubscribe:  {"resources", "subscribe"},
	mcp.MethodLoggingSetLevel:       {"logging"},
	mcp.MethodCompletionComplete:    {"completions"},
}

func capName(path []string) string {
	s := path[0]
	for _, p := range path[1:] {
		s += "." + p
	}
	return s
}

// undeclaredMethod flags a method the server served while its capability
// was not declared: the classic "No tools available". An empty list hides
// nothing (SDKs answer every list method, declared or not, with an empty
// list), so only a list with items is a finding.
func (l *Linter) undeclaredMethod(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	path, gated := methodCapability[req.method]
	if !gated || l.serverCaps == nil || l.hasServerCap(path...) {
		return
	}
	if key := mcp.ListItemsKey(req.method); key != "" {
		var items []json.RawMessage
		if json.Unmarshal(res[key], &items) != nil || len(items) == 0 {
			return
		}
	}
	if req.method == mcp.MethodCompletionComplete && l.version == mcp.Version20241105 {
		return // no completions capability existed yet
	}
	how := "answered"
	if req.probe {
		how = "answered mcpscope's probe of"
	}
	l.reportOnce("undeclared:"+req.method, "capabilities/undeclared-method",
		l.undeclaredText(how, req.method, capName(path), res), f.Seq, f.ReplyTo)
}

func (l *Linter) undeclaredText(how, method, capability string, res map[string]json.RawMessage) string {
	if key := mcp.ListItemsKey(method); key != "" {
		var items []json.RawMessage
		_ = json.Unmarshal(res[key], &items)
		return fmt.Sprintf("The server %s %s with %s but did not declare the %s capability, so clients will never ask for them.", how, method, plural.S(len(items), "item"), capability)
	}
	return fmt.Sprintf("The server %s %s successfully but did not declare the %s capability, so clients will never ask for it.", how, method, capability)
}

// capabilityError flags a declared capability whose list method is not
// found.
func (l *Linter) capabilityError(f *mcp.Frame, req *outRequest) {
	path, gated := methodCapability[req.method]
	if !gated || f.ErrorCode != mcp.CodeMethodNotFound || l.serverCaps == nil || !l.hasServerCap(path...) {
		return
	}
	l.reportOnce("declared:"+req.method, "capabilities/declared-not-served",
		fmt.Sprintf("The server declared %s but answered %s with -32601 (%s).", capName(path), req.method, f.ErrorMessage), f.Seq, f.ReplyTo)
}

func (l *Linter) list(method string) *listState {
	ls := l.lists[method]
	if ls == nil {
		ls = &listState{}
		l.lists[method] = ls
	}
	return ls
}

// startListing begins a listing: a list request without a cursor.
func (l *Linter) startListing(method string) {
	ls := l.list(method)
	ls.chain = true
	ls.cursors = map[string]bool{}
	ls.names = map[string]int64{}
	ls.items = map[uint64]bool{}
	ls.cacheScope = ""
	ls.firstSeq = 0
	ls.viewTools = nil
	if method == mcp.MethodToolsList {
		l.toolOrder = nil
	}
}

// listPage checks one page of a list: its items, its cursor, and, on the
// last page, whether the list changed since the previous listing.
func (l *Linter) listPage(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	ls := l.list(req.method)
	if !ls.chain {
		l.startListing(req.method)
	}
	if ls.firstSeq == 0 {
		ls.firstSeq = f.Seq
	}
	next, hasNext := str(res, "nextCursor")
	if hasNext && next != "" && ls.cursors[next] {
		// A pagination loop: this page is one the listing already had (a
		// server that ignores the cursor sends the first page again), so
		// its items say nothing new, and their "duplicates" are not real.
		l.report("pagination/repeated-cursor", fmt.Sprintf("%s returned cursor %q a second time in one listing, so the listing cannot complete; clients stop or loop forever.", req.method, next), f.Seq)
		ls.chain = false
		return
	}
	var items []json.RawMessage
	_ = json.Unmarshal(res[mcp.ListItemsKey(req.method)], &items)
	for _, it := range items {
		if len(ls.items) < 100000 {
			h := fnv.New64a()
			h.Write([]byte(compact(it)))
			ls.items[h.Sum64()] = true
		}
		switch req.method {
		case mcp.MethodToolsList:
			l.tool(f, ls, it)
			if _, ok := profileClient[l.opts.Profile]; ok && len(ls.viewTools) < maxViewTools {
				ls.viewTools = append(ls.viewTools, it)
			}
		case mcp.MethodResourceTemplatesList:
			l.templateEntry(f, it)
			l.listEntry(f, req.method, it)
		default:
			l.listEntry(f, req.method, it)
			if req.method == mcp.MethodResourcesList {
				l.appListed(f, it)
			}
		}
	}
	if l.modern {
		scope, _ := str(res, "cacheScope")
		if ls.cacheScope == "" {
			ls.cacheScope = scope
		} else if scope != "" && scope != ls.cacheScope {
			l.report("modern/cache-hints", fmt.Sprintf("%s pages disagree on cacheScope: %q, then %q.", req.method, ls.cacheScope, scope), ls.firstSeq, f.Seq)
		}
	}
	switch {
	case hasNext && next == "":
		l.report("pagination/empty-cursor", fmt.Sprintf("%s returned an empty nextCursor; omit it on the last page.", req.method), f.Seq)
	case hasNext:
		ls.cursors[next] = true
		return
	}
	l.listingDone(f, req.method, ls)
}

// listingDone compares a complete listing with the previous one.
func (l *Linter) listingDone(f *mcp.Frame, method string, ls *listState) {
	ls.chain = false
	if ls.prev != nil && !ls.notified && !sameSet(ls.prev, ls.items) {
		noun := method[:len(method)-len("/list")]
		msg := fmt.Sprintf("The %s list changed between two listings without a list_changed notification.", noun)
		l.report("lists/changed-without-notification", msg, ls.prevSeq, f.Seq)
	}
	if ls.prev != nil && method == mcp.MethodToolsList && !sameSet(ls.prev, ls.items) {
		l.report("profile/chatgpt-list-frozen", "The tool list changed during the session; ChatGPT keeps the list it fetched when the app was added and will not see the change.", ls.prevSeq, f.Seq)
	}
	ls.prev, ls.items = ls.items, nil
	ls.prevSeq = f.Seq
	ls.notified = false
	if method == mcp.MethodToolsList {
		l.profileToolCount(f, len(ls.prev))
		l.profileView(f, ls.viewTools)
		ls.viewTools = nil
		l.toolOrderDone(f)
	}
}

func sameSet(a, b map[uint64]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// listEntry checks a prompt, resource or template entry's display strings.
func (l *Linter) listEntry(f *mcp.Frame, method string, raw json.RawMessage) {
	e := object(raw)
	for _, k := range []string{"name", "title", "description", "uri", "uriTemplate"} {
		if s, ok := str(e, k); ok {
			l.controlChars(f, method+" "+k, s)
		}
	}
}
