// Package reading is the one reading of a session file that every
// consumer shares: `mcpscope diff` takes its surface, `replay` its
// exchanges, `export` its timeline and outcome, `open` the events it is
// made from. Everything is derived from the frames, whatever wrote the
// file (the TUI, call, check, a tap of any client, a replay): which
// request was the handshake and which were probes before it (Claude Code
// sends server/discover first and falls back to initialize on -32601),
// what answered what, which requests send an earlier one again (the
// modern era's retries with input responses, a request sent again after
// its stream broke), the lists as their last complete listing, and how
// the session ended.
package reading

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Session is a session file read whole.
type Session struct {
	// Source names the file (its path as given).
	Source string
	Header record.Entry
	// Events are the file's events, rebuilt (record.ReadEvents): the
	// recorded diagnostics are left out when the caller asked.
	Events []mcp.Event
	// Connections are the session's connections in order: a reconnect
	// (or a second initialize in a tap's capture) starts the next.
	Connections []*Connection
	Outcome     Outcome
	// Cut, when set, says the file ends mid-line (its writer stopped
	// there): everything above is from its complete lines.
	Cut *record.CutError
}

// Role says what an exchange was in the conversation.
type Role uint8

const (
	// Request is one of the client's requests and its answer.
	Request Role = iota
	// Probe is a request sent to learn how to talk, not to be answered
	// as asked: a handshake-method request before the handshake that was
	// not it (server/discover answered -32601, then initialize), or one
	// mcpscope marked as its own (a keep-alive ping, an --era auto probe).
	Probe
	// Handshake is the initialize or server/discover that opened the
	// session.
	Handshake
	// Retry sends an earlier request again: under the modern era, with
	// the input responses the server asked for; or after the stream that
	// should have carried its answer broke. RetryOf names the first.
	Retry
	// ServerRequest is a request of the server's (sampling, elicitation,
	// roots) and the client's answer.
	ServerRequest
	// Lone is a frame of no exchange: a notification, an invalid line, a
	// batch's envelope, an answer to nothing or a second answer.
	Lone
)

var roleNames = [...]string{"request", "probe", "handshake", "retry", "server request", "lone"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role(%d)", r)
}

// Exchange is a request and what answered it, or a lone frame.
type Exchange struct {
	Role     Role
	Request  *mcp.Frame
	Response *mcp.Frame // the first answer; nil when none came
	Single   *mcp.Frame // a Lone exchange's frame
	// Local is how a request ended without an answer (a timeout, a
	// cancel, a lost connection): mcpscope's doing, not the server's.
	Local *mcp.LocalError
	// RetryOf is the exchange a Retry sends again (the first of its
	// chain); Retries are an exchange's retries in order.
	RetryOf *Exchange
	Retries []*Exchange
}

// First is the exchange's first frame.
func (x *Exchange) First() *mcp.Frame {
	if x.Request != nil {
		return x.Request
	}
	return x.Single
}

// Method is the request's method (a lone frame's own).
func (x *Exchange) Method() string { return x.First().Method }

// Params are the request's params, exactly as sent.
func (x *Exchange) Params() json.RawMessage {
	if x.Request == nil {
		return nil
	}
	p, _ := jsonview.Member(x.Request.Raw, "params")
	return p
}

// Answer is the part of the response that answers: {"result": ...} or
// {"error": ...}, the id and jsonrpc left out; nil without a response.
func (x *Exchange) Answer() json.RawMessage { return answerOf(x.Response) }

// Final is the exchange that holds the request's last word: its last
// retry, or itself.
func (x *Exchange) Final() *Exchange {
	if n := len(x.Retries); n > 0 {
		return x.Retries[n-1]
	}
	return x
}

// Failed reports whether the exchange is what a bug report shows: an
// error answer, a tool result with isError, a request that got no answer,
// an invalid frame. A probe answered with an error did what a probe does.
func (x *Exchange) Failed() bool {
	switch {
	case x.Role == Probe && x.Response != nil:
		return false
	case x.Local != nil:
		return true
	case x.Response != nil && x.Response.Kind == mcp.KindErrorResponse:
		return true
	case x.Response != nil && x.Request != nil && x.Request.Method == mcp.MethodToolsCall:
		r, _ := jsonview.Member(x.Response.Raw, "result")
		return mcp.IsToolError(r)
	case x.Single != nil && x.Single.Kind == mcp.KindInvalid:
		return true
	}
	return false
}

// Label names the request for people: "tools/call add", "resources/read
// file:///x".
func (x *Exchange) Label() string {
	if x.Request == nil {
		return x.First().Label()
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(x.Params(), &p)
	switch {
	case p.Name != "":
		return x.Request.Method + " " + p.Name
	case p.URI != "":
		return x.Request.Method + " " + p.URI
	}
	return x.Request.Method
}

// Connection is one connection's conversation.
type Connection struct {
	// Handshake is the handshake that opened it (nil when none
	// completed), HandshakeExchange its request and answer.
	Handshake         *mcp.Handshake
	HandshakeExchange *Exchange
	// Exchanges are in the order of their first frame.
	Exchanges []*Exchange
	// Lists holds the last complete listing (every page) of each list
	// method the client listed; a method absent was not listed, or never
	// to its last page.
	Lists map[string][]json.RawMessage
	// ClientSession is the number of the client session it is, in a
	// tap's capture that numbers them (Frame.ClientSession); 0 otherwise.
	ClientSession int
}

// Client names the client that made the handshake ("opencode 1.2"), ""
// when it named none or no handshake completed.
func (c *Connection) Client() string {
	if c.Handshake == nil || c.Handshake.ClientInfo.Name == "" {
		return ""
	}
	name := c.Handshake.ClientInfo.Name
	if v := c.Handshake.ClientInfo.Version; v != "" {
		name += " " + v
	}
	return name
}

// Requests are the client's requests of the connection in order, probes,
// the handshake and retries left out: what a replay sends again.
func (c *Connection) Requests() []*Exchange {
	var out []*Exchange
	for _, x := range c.Exchanges {
		if x.Role == Request {
			out = append(out, x)
		}
	}
	return out
}

// Probes are the probes sent before the handshake, in order.
func (c *Connection) Probes() []*Exchange {
	var out []*Exchange
	for _, x := range c.Exchanges {
		if x == c.HandshakeExchange {
			break
		}
		if x.Role == Probe {
			out = append(out, x)
		}
	}
	return out
}

// ServerRequests are the server's requests and the client's answers.
func (c *Connection) ServerRequests() []*Exchange {
	var out []*Exchange
	for _, x := range c.Exchanges {
		if x.Role == ServerRequest {
			out = append(out, x)
		}
	}
	return out
}

// Outcome is how the session went and ended.
type Outcome struct {
	// Handshake says a handshake completed.
	Handshake bool
	// Requests counts the client's requests (probes and retries left
	// out); Answered those with an answer (after their retries), Errors
	// those answered with an error or an isError tool result, NoAnswer
	// those that ended without one (Local set), Pending those still
	// waiting when the file ends.
	Requests, Answered, Errors, NoAnswer, Pending int
	// Exit is the server's exit, when a stdio server's was recorded.
	Exit *mcp.ExitError
	// State is the last connection state recorded, Detail what it said.
	State  mcp.State
	Detail string
	// Ended says the file records an end (a closed, failed or lost
	// connection, an exit); false for a file that stops mid-session.
	Ended bool
}

// String says it in one line: "3 requests, 3 answered (1 error); closed:
// server exited with status 0".
func (o Outcome) String() string {
	var b strings.Builder
	if !o.Handshake {
		b.WriteString("no handshake completed; ")
	}
	fmt.Fprintf(&b, "%s, %d answered", plural.S(o.Requests, "request"), o.Answered)
	if o.Errors > 0 {
		fmt.Fprintf(&b, " (%d with an error)", o.Errors)
	}
	if o.NoAnswer > 0 {
		fmt.Fprintf(&b, ", %d without an answer", o.NoAnswer)
	}
	if o.Pending > 0 {
		fmt.Fprintf(&b, ", %d still waiting", o.Pending)
	}
	switch {
	case !o.Ended:
		b.WriteString("; the recording stops while the session was running")
	case o.Detail != "":
		fmt.Fprintf(&b, "; %s: %s", o.State, o.Detail)
	default:
		fmt.Fprintf(&b, "; %s", o.State)
	}
	return b.String()
}

// ReadFile reads a session file and reads it.
func ReadFile(path string, skipDiagnostics bool) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return Read(path, f, skipDiagnostics)
}

// Read reads a session file from r; source names it.
func Read(source string, r io.Reader, skipDiagnostics bool) (*Session, error) {
	sf, err := record.ReadEvents(r, skipDiagnostics)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	s := FromEvents(source, sf.Header, sf.Events)
	s.Cut = sf.Cut
	return s, nil
}

// CutNote is the one line a reader says of a file that ends mid-line
// ("" for a whole file): what was read and that the rest is missing.
func (s *Session) CutNote() string {
	if s.Cut == nil {
		return ""
	}
	return s.Source + ": " + s.Cut.Error()
}

// FromEvents reads a session's events (rebuilt from a file, or as they
// came).
func FromEvents(source string, header record.Entry, events []mcp.Event) *Session {
	s := &Session{Source: source, Header: header, Events: events}
	b := &builder{s: s, connState: &connState{}}
	for _, ev := range events {
		b.event(ev)
	}
	b.closeAll()
	s.Outcome = b.outcome()
	return s
}

// ErrNoHandshake says a session has no completed handshake.
var ErrNoHandshake = errors.New("the session has no completed handshake")

// First is the first connection whose handshake completed.
func (s *Session) First() (*Connection, error) {
	for _, c := range s.Connections {
		if c.Handshake != nil {
			return c, nil
		}
	}
	return nil, ErrNoHandshake
}

// Last is the last connection whose handshake completed.
func (s *Session) Last() (*Connection, error) {
	for i := len(s.Connections) - 1; i >= 0; i-- {
		if c := s.Connections[i]; c.Handshake != nil {
			return c, nil
		}
	}
	return nil, ErrNoHandshake
}

// Exchanges are every connection's exchanges, in order.
func (s *Session) Exchanges() []*Exchange {
	var out []*Exchange
	for _, c := range s.Connections {
		out = append(out, c.Exchanges...)
	}
	return out
}

// builder reads the events in order.
type builder struct {
	s *Session
	// connState is the connection being read; bySession holds each
	// client session's (a tap's capture that numbers them), the one
	// being read among them.
	*connState
	bySession map[int]*connState
	lastRead  *mcp.StateEvent
	exit      *mcp.ExitError
	// clientSignal is the signal a tap's client sent it (its row), the
	// end of a capture the client cut short by killing the tap.
	clientSignal string
}

// connState is what the builder knows of one connection as it reads it.
type connState struct {
	conn *Connection
	// bySeq: outbound request seq -> its exchange, in this connection;
	// byID: the unanswered outbound requests by id (for a file without
	// replyTo), and the server's requests awaiting the client's answer.
	bySeq    map[int64]*Exchange
	byID     map[mcp.ID][]*Exchange
	serverID map[mcp.ID]*Exchange
	lastSeq  int64
	// opening: before the connection's first request of another method
	// than initialize and server/discover.
	opening bool
	hsEvent *mcp.Handshake
	// requests: this connection's requests (Role Request) by method, in
	// order, that a later one may still send again (see retryOf).
	requests map[string][]*Exchange
}

func (b *builder) newConnection() {
	b.close()
	b.connState = &connState{conn: &Connection{Lists: map[string][]json.RawMessage{}},
		bySeq: map[int64]*Exchange{}, byID: map[mcp.ID][]*Exchange{}, serverID: map[mcp.ID]*Exchange{},
		requests: map[string][]*Exchange{}, opening: true}
	b.s.Connections = append(b.s.Connections, b.conn)
}

// enterSession makes client session n's connection the one being read,
// opening it at the session's first frame. Sessions through one tap may
// interleave; each is read whole, its answers paired with its requests.
func (b *builder) enterSession(n int) {
	if st := b.bySession[n]; st != nil {
		b.connState = st
		return
	}
	if b.conn == nil || !b.empty() || b.conn.ClientSession != 0 {
		// A connection begun with nothing in it yet (a connecting row
		// the viewer wrote as the session began) is this session's.
		b.newConnection()
	}
	b.conn.ClientSession = n
	if b.bySession == nil {
		b.bySession = map[int]*connState{}
	}
	b.bySession[n] = b.connState
}

// exchangeBySeq is the request of seq in the connection being read, or
// in another client session's (their numbering is the capture's one).
func (b *builder) exchangeBySeq(seq int64) *Exchange {
	if x := b.bySeq[seq]; x != nil {
		return x
	}
	for _, st := range b.bySession {
		if x := st.bySeq[seq]; x != nil {
			return x
		}
	}
	return nil
}

// empty reports a connection with nothing in it yet.
func (b *builder) empty() bool { return b.conn == nil || len(b.conn.Exchanges) == 0 }

func (b *builder) event(ev mcp.Event) {
	switch e := ev.(type) {
	case mcp.StateEvent:
		if e.State == mcp.StateConnecting && !b.empty() {
			b.newConnection()
		}
		st := e
		b.lastRead = &st
	case mcp.ExitEvent:
		b.exit = e.Exit
	case mcp.TransportEvent:
		if e.Kind == record.TransportClientSignal && b.clientSignal == "" {
			b.clientSignal = "a signal"
			for _, w := range strings.Fields(e.Summary) {
				if strings.HasPrefix(w, "SIG") {
					b.clientSignal = w
					break
				}
			}
		}
	case mcp.HandshakeEvent:
		if b.conn == nil {
			b.newConnection()
		}
		b.hsEvent = e.Handshake
		b.settleHandshake()
	case mcp.ListEvent:
		if b.conn != nil && e.Err == nil {
			b.conn.Lists[e.Method] = e.Items
		}
	case mcp.LocalErrorEvent:
		if x := b.exchangeBySeq(e.Err.ReqSeq); x != nil && x.Response == nil {
			x.Local = e.Err
			b.forgetIDIn(x)
		}
	case mcp.FrameEvent:
		b.frame(e.Frame)
	}
}

func isHandshakeMethod(m string) bool {
	return m == mcp.MethodInitialize || m == mcp.MethodServerDiscover
}

func (b *builder) frame(f *mcp.Frame) {
	// A sequence that starts again is a new connection (a reconnect
	// recorded without its connecting state); so is a second initialize
	// in a legacy session (a tap sees a client open one session after
	// another).
	switch {
	case f.ClientSession != 0:
		b.enterSession(f.ClientSession)
	case b.conn == nil || (f.Seq != 0 && f.Seq <= b.lastSeq):
		b.newConnection()
	case f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest && f.Method == mcp.MethodInitialize && !b.opening &&
		b.conn.Handshake != nil && b.conn.Handshake.Era == mcp.EraLegacy, b.nextClient(f):
		// The same numbering goes on: an answer to a request of the
		// session before (a client still open beside the new one) is
		// still found by its seq.
		bySeq := b.bySeq
		b.newConnection()
		b.bySeq = bySeq
	}
	if f.Seq != 0 {
		b.lastSeq = f.Seq
	}
	c := b.conn
	switch {
	case f.Kind == mcp.KindRequest && f.Dir == mcp.Outbound:
		x := &Exchange{Role: Request, Request: f}
		switch {
		case f.Probe:
			x.Role = Probe
		case b.opening && isHandshakeMethod(f.Method):
			x.Role = Probe // until the handshake names it (settleHandshake)
		default:
			if b.opening && f.Method != mcp.NotifyInitialized {
				b.settleHandshake()
				b.opening = false
			}
			b.retryOf(x)
		}
		c.Exchanges = append(c.Exchanges, x)
		if f.Seq != 0 {
			b.bySeq[f.Seq] = x
		}
		if f.ID != "" {
			b.byID[f.ID] = append(b.byID[f.ID], x)
		}
	case f.Kind == mcp.KindRequest && f.Dir == mcp.Inbound:
		x := &Exchange{Role: ServerRequest, Request: f}
		c.Exchanges = append(c.Exchanges, x)
		if f.ID != "" {
			b.serverID[f.ID] = x
		}
	case (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse) && f.Dir == mcp.Inbound:
		x := b.bySeq[f.ReplyTo]
		if f.ReplyTo == 0 {
			if pending := b.byID[f.ID]; len(pending) > 0 {
				x = pending[0]
			} else {
				x = b.postedBy(f)
			}
		}
		if x == nil || x.Response != nil || f.Duplicate {
			c.Exchanges = append(c.Exchanges, &Exchange{Role: Lone, Single: f})
			return
		}
		x.Response = f
		b.forgetID(x)
	case (f.Kind == mcp.KindResponse || f.Kind == mcp.KindErrorResponse) && f.Dir == mcp.Outbound:
		if x := b.serverID[f.ID]; x != nil && x.Response == nil {
			x.Response = f
			delete(b.serverID, f.ID)
			return
		}
		c.Exchanges = append(c.Exchanges, &Exchange{Role: Lone, Single: f})
	default:
		c.Exchanges = append(c.Exchanges, &Exchange{Role: Lone, Single: f})
	}
}

// nextClient reports a tap's capture going on with another client
// session: a handshake request (initialize or server/discover) the client
// sent after this connection's handshake completed. One tap --listen
// serves one client after another (opencode, then Copilot CLI's
// stateless server/discover). A handshake the tap sent itself (a hot
// reload's) is the same client's.
func (b *builder) nextClient(f *mcp.Frame) bool {
	return b.s.Header.Recorder == record.RecorderTap && b.conn != nil && b.conn.Handshake != nil && !b.opening &&
		f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest && isHandshakeMethod(f.Method) && !f.ByTap
}

// postedBy is the request an answer under no known id (an error with id
// null, as a server that could not read the request sends) came back to
// over HTTP: its stream is that request's POST ("POST /mcp server/discover
// (400 Bad Request)"), so it answers the latest request of that method
// still waiting.
func (b *builder) postedBy(f *mcp.Frame) *Exchange {
	rest, ok := strings.CutPrefix(f.Stream, "POST ")
	if !ok {
		return nil
	}
	words := strings.Fields(rest)
	if len(words) < 2 {
		return nil
	}
	method := words[1]
	ex := b.conn.Exchanges
	for i := len(ex) - 1; i >= 0; i-- {
		x := ex[i]
		if x.Request != nil && x.Request.Dir == mcp.Outbound && x.Request.Method == method && x.Response == nil && x.Local == nil {
			if id := streamID(f.Stream); id != "" && id != x.Request.ID.String() {
				continue
			}
			return x
		}
	}
	return nil
}

// streamID is the request id a stream's name gives: "... (id 3)".
func streamID(stream string) string {
	i := strings.LastIndex(stream, "(id ")
	if i < 0 || !strings.HasSuffix(stream, ")") {
		return ""
	}
	return stream[i+len("(id ") : len(stream)-1]
}

// forgetID takes an answered or abandoned request out of the by-id
// pairing.
func (st *connState) forgetID(x *Exchange) {
	id := x.Request.ID
	list := st.byID[id]
	for i, y := range list {
		if y == x {
			st.byID[id] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(st.byID[id]) == 0 {
		delete(st.byID, id)
	}
}

// forgetIDIn is forgetID in whichever connection x is of (a request
// ended by a local error may be another client session's).
func (b *builder) forgetIDIn(x *Exchange) {
	b.forgetID(x)
	for _, st := range b.bySession {
		st.forgetID(x)
	}
}

// settleHandshake picks, among the opening's handshake-method requests,
// the one that opened the session: the last answered with a result (of
// the era the handshake line names, when there is one). The others stay
// probes.
func (b *builder) settleHandshake() {
	c := b.conn
	if c == nil || c.HandshakeExchange != nil {
		if c != nil && c.Handshake == nil && b.hsEvent != nil {
			c.Handshake = b.hsEvent
		}
		return
	}
	want := ""
	if b.hsEvent != nil {
		want = mcp.MethodInitialize
		if b.hsEvent.Era == mcp.EraModern {
			want = mcp.MethodServerDiscover
		}
	}
	var hs *Exchange
	for _, x := range c.Exchanges {
		if x.Role != Probe || x.Request.Probe && x.Request.Method != mcp.MethodServerDiscover || !isHandshakeMethod(x.Request.Method) {
			continue
		}
		if x.Response == nil || x.Response.Kind != mcp.KindResponse || (want != "" && x.Request.Method != want) {
			continue
		}
		hs = x
	}
	if hs == nil {
		return
	}
	hs.Role = Handshake
	c.HandshakeExchange = hs
	c.Handshake = b.hsEvent
	if c.Handshake == nil {
		c.Handshake = record.HandshakeOf(hs.Request, hs.Response)
	}
}

// retryOf marks x a retry when it sends an earlier request again: with
// the input responses an input_required answer asked for (the modern
// era), or after an earlier identical request got no answer and no local
// error (it was sent again when its stream broke).
func (b *builder) retryOf(x *Exchange) {
	params := x.Params()
	mrtr := bytes.Contains(params, []byte(`"inputResponses"`)) || bytes.Contains(params, []byte(`"requestState"`))
	method := x.Request.Method
	// A request whose last try was answered, and not with input_required,
	// is never sent again: it leaves the list, so that a session of
	// 20,000 answered requests is read in linear time, not quadratic.
	ex := slices.DeleteFunc(b.requests[method], func(y *Exchange) bool {
		last := y.Final()
		return last.Response != nil && !inputRequired(last.Response)
	})
	b.requests[method] = ex
	defer func() {
		if x.Role == Request {
			b.requests[method] = append(b.requests[method], x)
		}
	}()
	for i := len(ex) - 1; i >= 0; i-- {
		y := ex[i]
		last := y.Final()
		switch {
		case mrtr && last.Response != nil && inputRequired(last.Response):
		case !mrtr && last.Response == nil && last.Local == nil && bytes.Equal(last.Params(), params) && y.Request.Seq != 0:
		default:
			continue
		}
		x.Role, x.RetryOf = Retry, y
		y.Retries = append(y.Retries, x)
		return
	}
}

func inputRequired(f *mcp.Frame) bool {
	res, ok := jsonview.Member(f.Raw, "result")
	if !ok {
		return false
	}
	rt, ok := jsonview.Member(res, "resultType")
	return ok && string(rt) == `"input_required"`
}

// close ends the connection being read: a handshake line that came late
// (a tap writes it after the answer) has been seen by now.
func (b *builder) close() {
	if b.conn != nil && b.opening {
		b.settleHandshake()
	}
}

// closeAll ends every connection at the end of the file: the client
// sessions left behind as another was read, and the last.
func (b *builder) closeAll() {
	cur := b.connState
	for _, st := range b.bySession {
		b.connState = st
		b.close()
	}
	b.connState = cur
	b.close()
}

// Counts is the connection's part of the outcome: whether its handshake
// completed and its requests' counts (a client session of a tap's
// capture, counted on its own).
func (c *Connection) Counts() Outcome {
	var o Outcome
	c.count(&o)
	return o
}

func (c *Connection) count(o *Outcome) {
	if c.Handshake != nil {
		o.Handshake = true
	}
	for _, x := range c.Requests() {
		o.Requests++
		last := x.Final()
		switch {
		case last.Response != nil:
			o.Answered++
			if last.Failed() {
				o.Errors++
			}
		case last.Local != nil:
			o.NoAnswer++
		default:
			o.Pending++
		}
	}
}

func (b *builder) outcome() Outcome {
	var o Outcome
	for _, c := range b.s.Connections {
		c.count(&o)
	}
	o.Exit = b.exit
	if st := b.lastRead; st != nil {
		o.State, o.Detail = st.State, st.Detail
		switch st.State {
		case mcp.StateClosed, mcp.StateFailed, mcp.StateLost:
			o.Ended = true
		}
	}
	if b.exit != nil {
		o.Ended = true
	}
	if !o.Ended && b.clientSignal != "" {
		// The client sent the tap a signal and killed it before the
		// server's end was recorded (Copilot CLI: SIGTERM, then SIGKILL).
		o.Ended, o.State = true, mcp.StateClosed
		o.Detail = "its client ended the conversation (" + b.clientSignal + "), then stopped the tap before it recorded how the server ended"
	}
	return o
}

func answerOf(f *mcp.Frame) json.RawMessage {
	if f == nil {
		return nil
	}
	var parts []string
	for _, k := range []string{"result", "error"} {
		if v, ok := jsonview.Member(f.Raw, k); ok {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
	}
	if len(parts) == 0 {
		return json.RawMessage(f.Raw) // not a JSON-RPC answer: compared whole
	}
	return json.RawMessage("{" + strings.Join(parts, ",") + "}")
}
