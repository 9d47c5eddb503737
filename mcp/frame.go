package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Direction says which way a frame travelled.
type Direction uint8

const (
	// Outbound frames went from mcpscope to the server.
	Outbound Direction = iota + 1
	// Inbound frames came from the server.
	Inbound
)

func (d Direction) String() string {
	switch d {
	case Outbound:
		return "out"
	case Inbound:
		return "in"
	}
	return "?"
}

// Arrow is the one-character symbol for the direction.
func (d Direction) Arrow() string {
	if d == Outbound {
		return "→"
	}
	return "←"
}

// Kind classifies a frame by its JSON-RPC shape.
type Kind uint8

// The kinds of frame: the four JSON-RPC message shapes, a batch, and
// anything else.
const (
	KindRequest Kind = iota + 1
	KindResponse
	KindErrorResponse
	KindNotification
	// KindBatch is a JSON array of messages (legal only in 2025-03-26). Its
	// elements follow it as frames of their own, each with BatchSeq set.
	KindBatch
	// KindInvalid is anything that is not a JSON-RPC message: invalid JSON,
	// a log line on stdout, a JSON value of the wrong shape.
	KindInvalid
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindResponse:
		return "response"
	case KindErrorResponse:
		return "error"
	case KindNotification:
		return "notification"
	case KindBatch:
		return "batch"
	case KindInvalid:
		return "invalid"
	}
	return "unknown"
}

// Frame is one message that crossed the wire, exactly as it was, plus what
// mcpscope learned by classifying and correlating it. A Frame is immutable
// once published.
type Frame struct {
	Seq       int64     // 1-based, in the order the client saw frames
	Time      time.Time // when the frame was written or read
	Dir       Direction
	Transport string // "stdio", "http", ...
	Raw       []byte // the exact bytes, without the line delimiter

	Kind   Kind
	Method string // for requests and notifications
	ID     ID     // raw id token; empty for notifications and invalid frames

	// Problem says why a frame is KindInvalid, or what is odd about an
	// otherwise usable frame (e.g. "no trailing newline"). Empty when fine.
	Problem string

	// For responses: the request this answers, its method and the round
	// trip. ReplyTo is 0 when the id matched no outstanding request.
	ReplyTo       int64
	ReplyToMethod string
	Latency       time.Duration
	UnknownID     bool // a response whose id matched no outstanding request
	Duplicate     bool // a second response to an id already answered

	// BatchSeq is the Seq of the batch frame this message was an element of.
	BatchSeq int64

	// Stream names the HTTP stream (or WebSocket) an inbound message came
	// on; empty for stdio, which has one stream each way.
	Stream string

	// ErrorCode and ErrorMessage are set on KindErrorResponse frames whose
	// error object could be read.
	ErrorCode    int
	ErrorMessage string

	// Probe marks frames sent to learn about the server (era detection,
	// undeclared-capability checks) rather than on the user's behalf, and
	// the answers to them, which are judged as answers to probes.
	Probe bool

	// ByTap marks a frame a tap wrote itself instead of passing it on
	// (tap --watch): to the server, the client's handshake and
	// subscriptions replayed after a restart and the lists it takes, and
	// their answers, which the client never sees; to the client, the
	// errors for its requests in flight at a restart and the list_changed
	// notifications after it.
	ByTap bool

	// ByView marks a request a tool's view sent through mcpscope (the MCP
	// Apps preview's tools/call and resources/read), and its answer.
	ByView bool

	// ClientSession numbers the client session the frame belongs to when
	// one tap carries several (an HTTP tap --listen serving one client
	// after another, or two at once), 1 on in the order they began; 0
	// when there is one conversation or the record predates the number.
	ClientSession int

	// home and ref name the FrameStore that rebuilt this frame and its
	// index there plus one (zero for a frame not rebuilt by a store).
	home uint32
	ref  int32
}

// Size is the frame's length in bytes.
func (f *Frame) Size() int { return len(f.Raw) }

// Label is a short human description: the method, or "result of <method>".
func (f *Frame) Label() string {
	switch f.Kind {
	case KindRequest, KindNotification:
		return f.Method
	case KindResponse, KindErrorResponse:
		if f.ReplyToMethod != "" {
			return "result of " + f.ReplyToMethod
		}
		return "response"
	case KindBatch:
		return "batch"
	}
	return "invalid"
}

// knownMethods maps the spec's method names, as JSON strings spelled
// plainly, to the one string each: a flood of notifications/message
// shares one, and classify skips decoding it.
var knownMethods = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{MethodInitialize, MethodPing, MethodServerDiscover, MethodToolsList, MethodToolsCall,
		MethodPromptsList, MethodPromptsGet, MethodResourcesList, MethodResourceTemplatesList, MethodResourcesRead,
		MethodResourcesSubscribe, MethodResourcesUnsubscribe, MethodSubscriptionsListen, MethodLoggingSetLevel,
		MethodCompletionComplete, MethodTasksList, MethodTasksGet, MethodTasksResult, MethodTasksCancel,
		MethodSamplingCreateMessage, MethodElicitationCreate, MethodRootsList,
		NotifyInitialized, NotifyCancelled, NotifyProgress, NotifyMessage, NotifyToolsListChanged,
		NotifyPromptsListChanged, NotifyResourcesListChanged, NotifyResourcesUpdated, NotifyRootsListChanged,
		NotifyTasksStatus, NotifyElicitationComplete, NotifySubscriptionsAcknowledged} {
		m[`"`+name+`"`] = name
	}
	return m
})

// parsed is the result of classifying one JSON value.
type parsed struct {
	kind    Kind
	method  string
	id      ID
	params  json.RawMessage
	result  json.RawMessage
	errObj  *RPCError
	problem string
	batch   []json.RawMessage
}

// classify decides what a raw message is. It never fails: anything that is
// not a JSON-RPC message is reported as KindInvalid with a reason.
func classify(raw []byte) parsed {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return parsed{kind: KindInvalid, problem: "empty line"}
	}
	if bytes.HasPrefix(trimmed, []byte("\xef\xbb\xbf")) {
		return parsed{kind: KindInvalid, problem: "starts with a UTF-8 byte order mark"}
	}
	if !utf8.Valid(trimmed) {
		return parsed{kind: KindInvalid, problem: "not valid UTF-8"}
	}
	switch trimmed[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return parsed{kind: KindInvalid, problem: "invalid JSON: " + jsonErrText(err)}
		}
		return parsed{kind: KindBatch, batch: elems}
	case '{':
	default:
		if jsonview.Valid(trimmed) {
			return parsed{kind: KindInvalid, problem: "a JSON value that is not a JSON-RPC object"}
		}
		return parsed{kind: KindInvalid, problem: "not JSON (a log line on stdout?)"}
	}
	// The members are views of the frame's bytes, not copies (see
	// decodeEnvelope): a large result is kept once.
	env, err := decodeEnvelope(trimmed)
	if err != nil {
		return parsed{kind: KindInvalid, problem: "invalid JSON: " + jsonErrText(err)}
	}
	p := parsed{params: env.Params, result: env.Result}
	var problems []string
	if string(env.JSONRPC) != `"2.0"` {
		if env.JSONRPC == nil {
			problems = append(problems, `missing "jsonrpc"`)
		} else {
			problems = append(problems, `"jsonrpc" is `+string(env.JSONRPC)+`, not "2.0"`)
		}
	}
	if env.ID != nil {
		p.id = ID(compactJSON(env.ID))
	}
	switch {
	case env.Method != nil:
		if m, ok := knownMethods()[string(env.Method)]; ok {
			p.method = m // no string per frame for the methods of the spec
		} else if err := json.Unmarshal(env.Method, &p.method); err != nil {
			return parsed{kind: KindInvalid, id: p.id, problem: `"method" is not a string`}
		}
		if env.ID != nil {
			p.kind = KindRequest
			if msg := idProblem(env.ID); msg != "" {
				problems = append(problems, msg)
			}
		} else {
			p.kind = KindNotification
		}
	case env.Result != nil || env.Error != nil:
		if env.Result != nil && env.Error != nil {
			problems = append(problems, `has both "result" and "error"`)
		}
		if env.Error != nil {
			p.kind = KindErrorResponse
			var e RPCError
			if err := json.Unmarshal(env.Error, &e); err != nil {
				problems = append(problems, `"error" is not a JSON-RPC error object`)
				p.errObj = &RPCError{Code: 0, Message: compactJSON(env.Error)}
			} else {
				p.errObj = &e
			}
		} else {
			p.kind = KindResponse
		}
	default:
		return parsed{kind: KindInvalid, id: p.id, problem: `neither "method" nor "result"/"error"`}
	}
	p.problem = strings.Join(problems, "; ")
	return p
}

// idProblem reports an id that JSON-RPC or MCP forbids on a request.
func idProblem(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "unreadable id"
	}
	switch x := v.(type) {
	case string:
		return ""
	case json.Number:
		if _, err := x.Int64(); err != nil {
			return fmt.Sprintf("id %s is not an integer", x)
		}
		return ""
	case nil:
		return "id is null"
	}
	return "id is neither a string nor an integer"
}

func jsonErrText(err error) string {
	s := err.Error()
	return strings.TrimPrefix(s, "json: ")
}
