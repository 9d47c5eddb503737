package doctor

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// discoverResult switches the linter to the modern era: a server/discover
// that succeeded means the server speaks 2026-07-28 or later.
func (l *Linter) discoverResult(f *mcp.Frame, res map[string]json.RawMessage) {
	l.modern = true
	if caps, ok := res["capabilities"]; ok {
		l.checkCapabilities(f, caps)
		if isObject(caps) {
			l.serverCaps = caps
		} else {
			l.serverCaps = json.RawMessage(`{}`)
		}
	}
	if s, ok := str(res, "instructions"); ok {
		l.controlChars(f, "instructions", s)
	}
	if si := object(object(res["_meta"])[mcp.MetaServerInfo]); si != nil {
		for _, k := range []string{"name", "title", "version", "description"} {
			if s, ok := str(si, k); ok {
				l.controlChars(f, "serverInfo."+k, s)
			}
		}
	}
}

// discoverVersion flags a discover result served under a version the
// server's own supportedVersions leave out: it should have been -32022.
func (l *Linter) discoverVersion(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	var supported []string
	if req.version == "" || json.Unmarshal(res["supportedVersions"], &supported) != nil || len(supported) == 0 {
		return
	}
	for _, v := range supported {
		if v == req.version {
			return
		}
	}
	l.report("modern/discover-version-unsupported", fmt.Sprintf("server/discover declared protocol version %s and got a result whose supportedVersions (%s) leave it out, instead of error -32022.", req.version, quoteList(supported)), f.Seq, f.ReplyTo)
}

var cacheableMethods = map[string]bool{
	mcp.MethodServerDiscover: true, mcp.MethodToolsList: true, mcp.MethodPromptsList: true,
	mcp.MethodResourcesList: true, mcp.MethodResourceTemplatesList: true, mcp.MethodResourcesRead: true,
}

var inputRequiredMethods = map[string]bool{mcp.MethodToolsCall: true, mcp.MethodPromptsGet: true, mcp.MethodResourcesRead: true}

// modernResult checks what every 2026-07-28 result must carry.
func (l *Linter) modernResult(f *mcp.Frame, req *outRequest, res map[string]json.RawMessage) {
	rt, hasRT := str(res, "resultType")
	switch {
	case !hasRT:
		l.report("modern/result-type", fmt.Sprintf("The result of %s has no resultType.", req.method), f.Seq, f.ReplyTo)
	case rt != "complete" && rt != "input_required" && rt != "task":
		l.report("modern/result-type", fmt.Sprintf("The result of %s has unknown resultType %q.", req.method, rt), f.Seq, f.ReplyTo)
	}
	_, hasTTL := res["ttlMs"]
	_, hasScope := res["cacheScope"]
	switch {
	case rt == "input_required":
		if hasTTL || hasScope {
			l.report("modern/cache-hints", fmt.Sprintf("The input_required result of %s carries cache hints; input requests are never cached.", req.method), f.Seq, f.ReplyTo)
		}
		if !inputRequiredMethods[req.method] {
			l.report("modern/input-required", fmt.Sprintf("%s answered input_required; only tools/call, prompts/get and resources/read may.", req.method), f.Seq, f.ReplyTo)
		}
		_, hasReqs := res["inputRequests"]
		_, hasState := res["requestState"]
		if !hasReqs && !hasState {
			l.report("modern/input-required", fmt.Sprintf("The input_required result of %s has neither inputRequests nor requestState.", req.method), f.Seq, f.ReplyTo)
		}
	case cacheableMethods[req.method]:
		var problems []string
		var ttl float64
		if !hasTTL {
			problems = append(problems, "no ttlMs")
		} else if json.Unmarshal(res["ttlMs"], &ttl) != nil || ttl < 0 || ttl != float64(int64(ttl)) {
			problems = append(problems, "ttlMs "+compact(res["ttlMs"])+" is not a non-negative integer")
		}
		if scope, _ := str(res, "cacheScope"); scope != "public" && scope != "private" {
			problems = append(problems, "cacheScope "+compactOr(res["cacheScope"], "missing")+` is not "public" or "private"`)
		}
		if len(problems) > 0 {
			l.report("modern/cache-hints", fmt.Sprintf("The result of %s lacks valid cache hints: %s.", req.method, strings.Join(problems, "; ")), f.Seq, f.ReplyTo)
		}
	}
	if object(object(res["_meta"])[mcp.MetaServerInfo]) == nil {
		l.reportOnce("server-info", "modern/server-info", fmt.Sprintf(`The result of %s has no _meta["%s"] (reported once per session).`, req.method, mcp.MetaServerInfo), f.Seq)
	}
}

// modernErrorCode flags error codes the 2026-07-28 allocation forbids.
func (l *Linter) modernErrorCode(f *mcp.Frame) {
	if !l.modern {
		return
	}
	c := f.ErrorCode
	switch {
	case c == mcp.CodeResourceNotFound || c == mcp.CodeURLElicitationRequired:
		l.report("modern/reserved-error-code", fmt.Sprintf("The server sent error code %d, which 2026-07-28 implementations must not emit.", c), f.Seq)
	case c <= -32020 && c >= -32099 && c != mcp.CodeHeaderMismatch && c != mcp.CodeMissingClientCapability && c != mcp.CodeUnsupportedProtocolVersion:
		l.report("modern/reserved-error-code", fmt.Sprintf("The server sent error code %d, in the range reserved for the spec but not defined by it.", c), f.Seq)
	}
}
