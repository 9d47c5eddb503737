package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

func (l *Linter) observeFrame(f *mcp.Frame) {
	if f.Dir == mcp.Outbound {
		l.outbound(f)
		return
	}
	l.inbound(f)
	l.streamOf(f)
}

// outbound learns from what mcpscope sent: the requests to correlate, the
// offered version and capabilities, subscriptions and progress tokens.
func (l *Linter) outbound(f *mcp.Frame) {
	if f.Transport == "http" {
		l.lastHTTPOutbound = f.Kind
		l.noteSent(f)
	}
	switch f.Kind {
	case mcp.KindRequest:
		l.outboundRequest(f)
	case mcp.KindNotification:
		switch f.Method {
		case mcp.NotifyInitialized:
			l.initializedSent = true
		case mcp.NotifyCancelled:
			l.outboundCancel(f)
		}
	}
}

func (l *Linter) outboundRequest(f *mcp.Frame) {
	env, _ := parseEnvelope(f.Raw)
	params := object(env.Params)
	req := &outRequest{id: string(f.ID), method: f.Method, probe: f.Probe}
	if meta := object(params["_meta"]); meta != nil {
		if tok, ok := meta["progressToken"]; ok {
			req.hasToken, req.token = true, compact(tok)
			l.progress[req.token] = &progressState{reqSeq: f.Seq}
		}
		req.version, _ = str(meta, mcp.MetaProtocolVersion)
		if l.clientCaps == nil {
			if caps, ok := meta[mcp.MetaClientCapabilities]; ok {
				l.clientCaps = caps
			}
		}
	}
	req.cursor, _ = str(params, "cursor")
	if f.Method == mcp.MethodResourcesRead {
		req.uri, _ = str(params, "uri")
	}
	switch f.Method {
	case mcp.MethodServerDiscover:
		l.discoverSent = true
	case mcp.MethodInitialize:
		l.initSeq = f.Seq
		l.sseIDs = newBoundedSet(4096) // event ids are unique per session
		l.sessionID = ""               // a new session may bring a new id
		// A new session lists afresh: a list that differs from the last
		// session's (a server restarted under tap --watch, a client's
		// second session) changed between sessions, not unannounced.
		l.lists = map[string]*listState{}
		l.offeredVersion, _ = str(params, "protocolVersion")
		if caps, ok := params["capabilities"]; ok {
			l.clientCaps = caps
		}
	case mcp.MethodToolsCall:
		req.toolName, _ = str(params, "name")
	case mcp.MethodResourcesSubscribe:
		if uri, ok := str(params, "uri"); ok {
			l.subscribed.add(uri)
		}
	}
	if mcp.ListItemsKey(f.Method) != "" && req.cursor == "" {
		l.startListing(f.Method)
	}
	if len(l.pending) < 10000 {
		l.pending[f.Seq] = req
	}
}

// inbound checks one message from the server.
func (l *Linter) inbound(f *mcp.Frame) {
	switch f.Kind {
	case mcp.KindInvalid:
		l.nonJSON(f)
		return
	case mcp.KindBatch:
		l.batch(f)
		return
	}
	env, ok := parseEnvelope(f.Raw)
	if !ok {
		return
	}
	l.jsonrpcVersion(f, env)
	switch f.Kind {
	case mcp.KindRequest:
		l.serverRequest(f, env)
	case mcp.KindNotification:
		l.serverNotification(f, env)
	case mcp.KindResponse, mcp.KindErrorResponse:
		l.response(f, env)
	}
}

// nonJSON explains a stdout line that is not a JSON-RPC message, guessing
// at the usual causes.
func (l *Linter) nonJSON(f *mcp.Frame) {
	if mcp.IsCutLine(f.Problem) {
		// mcpscope's own limit cut it: the line may be valid JSON-RPC.
		cut, _, _ := strings.Cut(f.Problem, "; ") // not the JSON error the cut made
		l.report("framing/line-over-limit", "The server sent "+cut+".", f.Seq)
		return
	}
	raw := bytes.TrimSpace(f.Raw)
	problem := f.Problem
	if problem == "" {
		problem = "not a JSON-RPC message"
	}
	where := "stdout"
	if f.Transport != "" && f.Transport != "stdio" {
		where = "the " + f.Transport + " stream"
	}
	msg := fmt.Sprintf("The server wrote a line to %s that is not a JSON-RPC message: %s. The line: %s", where, problem, preview(raw))
	// A specific fix replaces the rule's general one (which says the same
	// things in general), so the advice is given once.
	fix := ""
	switch {
	case strings.Contains(problem, "byte order mark"):
		fix = "Write UTF-8 without a byte order mark."
	case strings.Contains(problem, "UTF-8"):
		fix = "Encode every message as UTF-8."
	case looksLikeFragment(raw):
		fix = "This looks like pretty-printed JSON split across lines: serialize each message on one line (JSON.stringify(msg) without indentation, json.dumps(msg) without indent)."
	case len(raw) > 0 && raw[0] != '{' && raw[0] != '[':
		fix = "This looks like a log line or banner: write it to stderr instead (console.error, print(..., file=sys.stderr), log to os.Stderr), and keep stdout for JSON-RPC messages, one compact object per line."
	}
	if d := l.report("framing/non-json-stdout", msg, f.Seq); d != nil && fix != "" {
		d.Fix = fix
	}
}

// looksLikeFragment spots the pieces of a JSON object printed over several
// lines: an opening brace alone, or a line of "key": value.
// It reads raw in place: a cut line can be 256 MiB.
func looksLikeFragment(raw []byte) bool {
	return len(raw) == 1 && bytes.ContainsAny(raw, "{}[]") ||
		bytes.HasPrefix(raw, []byte(`"`)) && bytes.Contains(raw, []byte(`":`)) ||
		bytes.HasPrefix(raw, []byte("{")) && !jsonview.Valid(raw)
}

// preview quotes the start of raw, cut before it is copied.
func preview(raw []byte) string {
	const max = 80
	if len(raw) > max {
		return fmt.Sprintf("%q", string(raw[:max])+"…")
	}
	return fmt.Sprintf("%q", raw)
}

func (l *Linter) batch(f *mcp.Frame) {
	v := l.version
	if v == "" {
		v = l.offeredVersion
	}
	if v == mcp.Version20250326 {
		return
	}
	label := v
	if label == "" {
		label = "an unknown version"
	}
	l.report("framing/batch-forbidden", fmt.Sprintf("The server sent a JSON-RPC batch (an array of messages) under protocol %s; only 2025-03-26 allows batches.", label), f.Seq)
}

func (l *Linter) jsonrpcVersion(f *mcp.Frame, env envelope) {
	if string(bytes.TrimSpace(env.JSONRPC)) == `"2.0"` {
		return
	}
	what := `has no "jsonrpc" member`
	if env.JSONRPC != nil {
		what = `has "jsonrpc": ` + compact(env.JSONRPC)
	}
	l.report("framing/jsonrpc-version", fmt.Sprintf("A %s from the server %s; it must be \"2.0\".", f.Kind, what), f.Seq)
}

// idProblem reports a request id JSON-RPC or MCP forbids.
func idProblem(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return ""
	}
	switch s[0] {
	case '"':
		return ""
	case 'n':
		return "is null"
	case '{', '[', 't', 'f':
		return "is " + jsonKind(raw) + ", not a string or an integer"
	}
	if bytes.ContainsAny(s, ".eE") {
		var n json.Number
		if json.Unmarshal(s, &n) == nil {
			if _, err := n.Int64(); err != nil {
				return "is " + string(s) + ", not an integer"
			}
		}
	}
	return ""
}

// response checks a response and hands a correlated one to the rules of
// the method it answers.
func (l *Linter) response(f *mcp.Frame, env envelope) {
	if env.Result != nil && env.Error != nil {
		l.report("framing/result-and-error", `A response carries both "result" and "error".`, f.Seq, f.ReplyTo)
	}
	switch {
	case f.Duplicate:
		l.report("framing/duplicate-response", fmt.Sprintf("A second response to id %s (%s), already answered.", f.ID, orUnknown(f.ReplyToMethod)), f.Seq, f.ReplyTo)
		return
	case f.UnknownID:
		if strings.Contains(f.Problem, "different JSON type") {
			l.report("framing/id-type-drift", fmt.Sprintf("Response id %s matches a request only after changing its JSON type: %s.", f.ID, f.Problem), f.Seq)
		}
		if string(f.ID) == "null" && f.Kind == mcp.KindErrorResponse && l.answersProbeOnItsStream(f) {
			// Over HTTP the POST carries its answer, so a null id there
			// is tied to the probe mcpscope sent: a legacy server
			// refusing a modern probe, which is what the probe is for.
			return
		}
		if string(f.ID) == "null" && f.Kind == mcp.KindErrorResponse {
			l.report("framing/null-id-error", fmt.Sprintf(`An error response has "id": null (code %d: %s).`, f.ErrorCode, f.ErrorMessage), f.Seq)
			return
		}
		l.report("framing/unknown-id", fmt.Sprintf("A response with id %s answers no request mcpscope sent.", orUnknown(string(f.ID))), f.Seq)
		return
	}
	req := l.pending[f.ReplyTo]
	delete(l.pending, f.ReplyTo)
	if req == nil {
		req = &outRequest{method: f.ReplyToMethod}
	}
	if req.hasToken {
		delete(l.progress, req.token)
		l.doneTokens.add(req.token)
	}
	l.timing(f, req)
	if env.Error != nil {
		l.errorResponse(f, req, env.Error)
		return
	}
	if !isObject(env.Result) {
		l.report("framing/result-not-object", fmt.Sprintf("The result of %s is %s, not an object.", orUnknown(req.method), jsonKind(env.Result)), f.Seq, f.ReplyTo)
		return
	}
	l.result(f, req, env.Result)
}

// answersProbeOnItsStream reports whether f came back on the HTTP POST of
// a probe mcpscope sent (the stream names the method it carried) while that
// probe was still unanswered.
func (l *Linter) answersProbeOnItsStream(f *mcp.Frame) bool {
	if !strings.HasPrefix(f.Stream, "POST ") {
		return false
	}
	for _, req := range l.pending {
		if req.probe && strings.Contains(f.Stream, " "+req.method+" ") {
			return true
		}
	}
	return false
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown request"
	}
	return s
}

func (l *Linter) errorResponse(f *mcp.Frame, req *outRequest, raw json.RawMessage) {
	e := object(raw)
	var code json.Number
	codeOK := e != nil && json.Unmarshal(e["code"], &code) == nil
	if codeOK {
		if _, err := code.Int64(); err != nil {
			codeOK = false
		}
	}
	_, msgOK := str(e, "message")
	if !codeOK || !msgOK {
		var missing []string
		if !codeOK {
			missing = append(missing, "an integer code")
		}
		if !msgOK {
			missing = append(missing, "a string message")
		}
		l.report("framing/error-object", fmt.Sprintf("The error answering %s lacks %s: %s", orUnknown(req.method), strings.Join(missing, " and "), preview([]byte(compact(raw)))), f.Seq, f.ReplyTo)
	}
	if string(f.ID) == "null" {
		l.report("framing/null-id-error", fmt.Sprintf(`The error answering %s has "id": null.`, orUnknown(req.method)), f.Seq)
	}
	l.capabilityError(f, req)
	if req.method == mcp.MethodResourcesRead {
		l.appReadFailed(f, req)
	}
	l.notFoundCode(f, req)
	l.modernErrorCode(f)
	l.urlElicitationRequired(f, e)
	if req.method == mcp.MethodPing && !l.modern { // 2026-07-28 removed ping
		l.report("lifecycle/ping-result", fmt.Sprintf("ping was answered with error %d (%s) instead of {}.", f.ErrorCode, f.ErrorMessage), f.Seq, f.ReplyTo)
	}
	if req.method == mcp.MethodToolsCall && req.toolName != "" && l.tools[req.toolName] != nil && f.ErrorCode != mcp.CodeMethodNotFound {
		l.report("tools/error-as-protocol-error", fmt.Sprintf("tools/call %s was answered with JSON-RPC error %d (%s) rather than a result with isError: true.", QuoteName(req.toolName), f.ErrorCode, f.ErrorMessage), f.Seq, f.ReplyTo)
	}
}

// result dispatches a successful result to the rules of its method.
func (l *Linter) result(f *mcp.Frame, req *outRequest, raw json.RawMessage) {
	res := object(raw)
	if req.method == mcp.MethodInitialize {
		l.initializeResult(f, res)
	}
	if req.method == mcp.MethodServerDiscover {
		l.discoverResult(f, res)
		l.discoverVersion(f, req, res)
	}
	l.undeclaredMethod(f, req, res)
	if l.modern {
		l.modernResult(f, req, res)
	}
	switch req.method {
	case mcp.MethodPing:
		if len(res) > 0 {
			l.report("lifecycle/ping-result", fmt.Sprintf("ping was answered with %s instead of an empty result {}.", preview([]byte(compact(raw)))), f.Seq, f.ReplyTo)
		}
	case mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		l.listPage(f, req, res)
	case mcp.MethodToolsCall:
		l.toolResult(f, req, res)
	case mcp.MethodResourcesRead:
		l.readResult(f, req, res)
	case mcp.MethodPromptsGet:
		l.promptResult(f, res)
	case mcp.MethodCompletionComplete:
		l.completionResult(f, res)
	}
}
