package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// Profile names a client whose documented behaviour adds warnings.
type Profile string

// The client profiles; generic adds no client's warnings.
const (
	ProfileGeneric Profile = "generic"
	ProfileChatGPT Profile = "chatgpt"
	ProfileClaude  Profile = "claude"
	ProfileVSCode  Profile = "vscode"
	ProfileGemini  Profile = "gemini"
	ProfileCodex   Profile = "codex"
	// ProfileOpenCode is opencode, ProfileCopilot GitHub Copilot CLI.
	ProfileOpenCode Profile = "opencode"
	ProfileCopilot  Profile = "copilot"
)

// Profiles lists the profiles --client-profile accepts.
func Profiles() []Profile {
	return []Profile{ProfileGeneric, ProfileChatGPT, ProfileClaude, ProfileVSCode, ProfileGemini, ProfileCodex, ProfileOpenCode, ProfileCopilot}
}

// ParseProfile reads a --client-profile value; "" is generic.
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return ProfileGeneric, nil
	}
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown client profile %q (want generic, chatgpt, claude, vscode, gemini, codex, opencode or copilot)", s)
}

// Options configure a [Linter].
type Options struct {
	// Profile adds the rules of one client; generic (the zero value) adds none.
	Profile Profile
	// ClientVersions are the protocol versions the client speaks; a server
	// answering another one breaks lifecycle/version-not-offered. Empty
	// means every version mcpscope speaks.
	ClientVersions []string
	// MaxPerRule caps the diagnostics of one rule in a session, so a server
	// that repeats a mistake on every frame cannot flood the log. Zero
	// means 100.
	MaxPerRule int
}

// Linter is the protocol doctor. It implements [mcp.Analyzer]; give it to
// a client through mcp.Options.Analyzer. It is safe for concurrent use, but
// one Linter follows one session.
type Linter struct {
	mu   sync.Mutex
	opts Options
	out  []*mcp.Diagnostic

	counts map[string]int

	// Handshake.
	initSeq         int64 // the outbound initialize request, 0 before it
	initAnswered    bool
	initializedSent bool
	offeredVersion  string
	version         string // negotiated; "" until known
	modern          bool
	serverCaps      json.RawMessage // nil until known
	serverInfo      mcp.Implementation
	clientCaps      json.RawMessage

	// Requests mcpscope sent, by the Seq of their frame, until answered.
	pending map[int64]*outRequest
	// Requests the server sent: every id used (for reuse and cancellation).
	serverIDs *boundedSet

	progress   map[string]*progressState // active progress tokens
	doneTokens *boundedSet               // tokens of finished requests

	subscribed     *boundedSet // resource URIs subscribed to
	elicitationIDs *boundedSet // URL-mode elicitation ids seen

	lists map[string]*listState // per list method
	tools map[string]*toolInfo  // the latest definition of each tool

	once map[string]bool // rules reported once per session

	lastHTTPOutbound mcp.Kind         // kind of the latest message posted over HTTP
	sentFrames       map[string]int64 // outbound responses by id, notifications by method
	sessionID        string

	// Timing: when mcpscope sent notifications/cancelled, by request id.
	cancelledAt *boundedTimes
	// stdio exit: requests stranded by the connection ending.
	stranded        int
	strandedMethods []string
	stdoutClosed    bool // stdio/stdout-closed was reported

	// SSE: event ids seen in this session, the streams that carried an id,
	// and the POST streams whose first SSE event was already judged.
	sseIDs         *boundedSet
	sseStreamIDs   *boundedSet
	sseStreamFirst *boundedSet

	// Modern tools/list order: the names of the previous complete listing.
	toolOrder, prevToolOrder []string
	prevToolOrderSeq         int64

	// apps is what the doctor knows of MCP Apps views (apps.go); nil
	// until a tool or resource has one.
	apps *appsState

	discoverSent bool   // mcpscope sent server/discover (the modern era)
	authNoPRM    string // a finding of auth/no-resource-metadata awaiting the version
}

// outRequest is what the linter remembers of one request mcpscope sent.
type outRequest struct {
	id       string // compact JSON id
	method   string
	probe    bool
	hasToken bool
	token    string // compact JSON of _meta.progressToken
	cursor   string
	toolName string
	uri      string // a resources/read's uri
	version  string // _meta protocolVersion the request declared (modern)
}

type progressState struct {
	reqSeq int64
	last   float64
	seen   bool
}

// listState follows one list method across pages and listings.
type listState struct {
	chain      bool             // a listing is under way
	cursors    map[string]bool  // cursors returned in this listing
	names      map[string]int64 // tool names in this listing → frame
	items      map[uint64]bool  // hashes of the items of this listing
	cacheScope string           // the first page's cacheScope
	firstSeq   int64            // first response frame of this listing
	prev       map[uint64]bool  // the previous complete listing
	prevSeq    int64            // its last frame
	notified   bool             // list_changed seen since the previous listing
	// viewTools are the tools of this listing, kept when the profile's
	// client has a view ([Linter.profileView]).
	viewTools []json.RawMessage
}

type toolInfo struct {
	// name is the tool's name as first listed: a name listed again is
	// held once (a long one weighs what its bytes do).
	name         string
	outputSchema json.RawMessage
	// output is outputSchema compiled, made on the tool's first result
	// with structuredContent and kept for the next ones (compiling checks
	// the schema against its meta-schema: most of the doctor's cost of a
	// result). Not made at listing time: a server may list thousands.
	output *schema.Schema
}

// New makes a linter for one session.
func New(opts Options) *Linter {
	if opts.Profile == "" {
		opts.Profile = ProfileGeneric
	}
	if len(opts.ClientVersions) == 0 {
		opts.ClientVersions = append(append([]string{}, mcp.LegacyVersions...), mcp.ModernVersions...)
	}
	if opts.MaxPerRule <= 0 {
		opts.MaxPerRule = 100
	}
	return &Linter{
		opts:           opts,
		counts:         map[string]int{},
		pending:        map[int64]*outRequest{},
		serverIDs:      newBoundedSet(4096),
		progress:       map[string]*progressState{},
		doneTokens:     newBoundedSet(512),
		subscribed:     newBoundedSet(1024),
		elicitationIDs: newBoundedSet(1024),
		lists:          map[string]*listState{},
		tools:          map[string]*toolInfo{},
		once:           map[string]bool{},
		cancelledAt:    newBoundedTimes(256),
		sseIDs:         newBoundedSet(4096),
		sseStreamIDs:   newBoundedSet(256),
		sseStreamFirst: newBoundedSet(256),
	}
}

var _ mcp.Analyzer = (*Linter)(nil)

// Observe implements [mcp.Analyzer]: it updates the linter's state from one
// event and returns the diagnostics the event reveals.
func (l *Linter) Observe(ev mcp.Event) []*mcp.Diagnostic {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = nil
	switch e := ev.(type) {
	case mcp.FrameEvent:
		if e.Frame != nil {
			l.observeFrame(e.Frame)
		}
	case mcp.HandshakeEvent:
		if e.Handshake != nil {
			l.observeHandshake(e.Handshake)
		}
	case mcp.TransportEvent:
		l.observeTransport(e)
	case mcp.LocalErrorEvent:
		l.observeLocalError(e)
	case mcp.ExitEvent:
		if e.Exit != nil {
			l.observeExit(e)
		}
	case mcp.StateEvent:
		if e.State == mcp.StateFailed {
			l.flushAuth(true)
		}
	}
	out := l.out
	l.out = nil
	return out
}

// report records one diagnostic of a rule. It returns nil when the rule
// belongs to another profile or has reached its cap, so callers that adjust
// the diagnostic must check.
func (l *Linter) report(id, message string, frames ...int64) *mcp.Diagnostic {
	r, ok := ruleIndex()[id]
	if !ok {
		panic("lint: unknown rule " + id)
	}
	if r.Profile != "" && r.Profile != l.opts.Profile {
		return nil
	}
	if l.counts[id] >= l.opts.MaxPerRule {
		return nil
	}
	l.counts[id]++
	var seqs []int64
	for _, s := range frames {
		if s > 0 {
			seqs = append(seqs, s)
		}
	}
	d := &mcp.Diagnostic{Rule: id, Severity: r.Severity, Frames: seqs, Message: message, Why: r.Why, Fix: r.Fix, SpecRef: r.SpecRef}
	l.out = append(l.out, d)
	return d
}

// reportOnce reports a rule at most once per session for a given key.
func (l *Linter) reportOnce(key, id, message string, frames ...int64) *mcp.Diagnostic {
	if l.once[key] {
		return nil
	}
	l.once[key] = true
	return l.report(id, message, frames...)
}

func (l *Linter) observeHandshake(h *mcp.Handshake) {
	l.modern = h.Era == mcp.EraModern
	if h.ProtocolVersion != "" {
		l.version = h.ProtocolVersion
	}
	if len(h.ServerCapabilities) > 0 {
		l.serverCaps = h.ServerCapabilities
	}
	if h.ServerInfo.Name != "" {
		l.serverInfo = h.ServerInfo
	}
	if len(h.ClientCapabilities) > 0 {
		l.clientCaps = h.ClientCapabilities
	}
	l.profileHandshake()
	l.flushAuth(false)
}

// hasServerCap reports whether the server declared a capability path; it
// is true when capabilities are unknown, so no rule fires on a guess.
func (l *Linter) hasServerCap(path ...string) bool {
	if l.serverCaps == nil {
		return true
	}
	return hasPath(l.serverCaps, path...)
}

// hasClientCap reports whether mcpscope offered a client capability; true
// when unknown.
func (l *Linter) hasClientCap(path ...string) bool {
	if l.clientCaps == nil {
		return true
	}
	return hasPath(l.clientCaps, path...)
}

// hasPath follows keys through nested objects; a value counts when it is
// neither false nor null. It scans (jsonview.Member) rather than decodes:
// a flood of notifications asks it once per frame.
func hasPath(raw json.RawMessage, path ...string) bool {
	cur := raw
	for _, key := range path {
		v, ok := jsonview.Member(cur, key)
		if !ok {
			return false
		}
		cur = v
	}
	s := string(bytes.TrimSpace(cur))
	return s != "false" && s != "null"
}

// envelope is a JSON-RPC message with every member kept raw, so that
// absence (nil) and null ("null") stay distinct.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// parseEnvelope reads a message's members as json.Unmarshal into envelope
// would (names matched case-insensitively, the last one winning), each a
// view of raw: a frame's bytes, checked once by the reader, are not
// decoded again here, where every frame passes. false when raw is not
// an object.
func parseEnvelope(raw []byte) (envelope, bool) {
	var e envelope
	ok := jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
		switch {
		case bytes.EqualFold(k, []byte("jsonrpc")):
			e.JSONRPC = v
		case bytes.EqualFold(k, []byte("id")):
			e.ID = v
		case bytes.EqualFold(k, []byte("method")):
			e.Method = v
		case bytes.EqualFold(k, []byte("params")):
			e.Params = v
		case bytes.EqualFold(k, []byte("result")):
			e.Result = v
		case bytes.EqualFold(k, []byte("error")):
			e.Error = v
		case bytes.IndexByte(k, '\\') >= 0:
			// An escaped name: decoded, as encoding/json matches it.
			switch strings.ToLower(jsonview.Key(k)) {
			case "jsonrpc":
				e.JSONRPC = v
			case "id":
				e.ID = v
			case "method":
				e.Method = v
			case "params":
				e.Params = v
			case "result":
				e.Result = v
			case "error":
				e.Error = v
			}
		}
		return true
	})
	return e, ok
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// object reads raw as a JSON object, its members views of raw, or
// returns nil.
func object(raw json.RawMessage) map[string]json.RawMessage {
	m, _ := jsonview.Object(raw)
	return m
}

// str decodes a JSON string member; ok is false when absent or not a
// string. null reads as "" (as json.Unmarshal into a string leaves it).
func str(m map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := m[key]
	if !ok {
		return "", false
	}
	if isNull(raw) {
		return "", true
	}
	return jsonview.String(raw)
}

// isStr reports what str's ok would, without decoding the string (a
// 20 MB text block need not be copied to know it is text).
func isStr(m map[string]json.RawMessage, key string) bool {
	raw := bytes.TrimSpace(m[key])
	return len(raw) > 0 && raw[0] == '"' || isNull(raw)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonKind names the JSON type of a raw value for messages.
func jsonKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "missing"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isObject(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && s[0] == '{'
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// boundedSet remembers the most recent keys, forgetting the oldest past its
// size, so the linter's memory stays bounded in long sessions.
type boundedSet struct {
	max   int
	m     map[string]struct{}
	order []string
}

func newBoundedSet(max int) *boundedSet {
	return &boundedSet{max: max, m: map[string]struct{}{}}
}

func (s *boundedSet) add(k string) {
	if _, ok := s.m[k]; ok {
		return
	}
	if len(s.order) >= s.max {
		delete(s.m, s.order[0])
		s.order = s.order[1:]
	}
	s.m[k] = struct{}{}
	s.order = append(s.order, k)
}

func (s *boundedSet) has(k string) bool {
	_, ok := s.m[k]
	return ok
}

func (s *boundedSet) each(fn func(string) bool) {
	for _, k := range s.order {
		if fn(k) {
			return
		}
	}
}

// boundedTimes remembers a time per key for the most recent keys.
type boundedTimes struct {
	max   int
	m     map[string]time.Time
	order []string
}

func newBoundedTimes(max int) *boundedTimes {
	return &boundedTimes{max: max, m: map[string]time.Time{}}
}

func (b *boundedTimes) set(k string, t time.Time) {
	if _, ok := b.m[k]; !ok {
		if len(b.order) >= b.max {
			delete(b.m, b.order[0])
			b.order = b.order[1:]
		}
		b.order = append(b.order, k)
	}
	b.m[k] = t
}

func (b *boundedTimes) get(k string) (time.Time, bool) {
	t, ok := b.m[k]
	return t, ok
}
