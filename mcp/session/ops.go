package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// listenLifetime bounds a subscriptions/listen stream: it has no answer
// until it ends, so it must not time out like a request.
const listenLifetime = 24 * time.Hour

// pingTimeout is short: a ping that takes longer says enough.
const pingTimeout = 10 * time.Second

// request describes an operation to start.
type request struct {
	kind          Kind
	method, label string
	params        map[string]any  // nil: no params
	rawParams     json.RawMessage // sent as they are instead of params (Request)
	timeout       time.Duration   // 0: the session's (tracked) or the client's
	uris          []string        // a listen stream's
	// decode reads the result; err makes the operation fail, problem is
	// reported next to a result that is still shown.
	decode func(raw json.RawMessage) (result any, err, problem error)
	// after returns the events that follow the outcome (a task's state,
	// a subscription's); it runs without the session's lock.
	after func(done *OpDoneEvent) []mcp.Event
}

// start registers an operation, puts its OpStartedEvent on the stream and
// runs it on a goroutine.
func (s *Session) start(r request) (Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startLocked(r)
}

func (s *Session) startLocked(r request) (Op, error) {
	if s.ended {
		return Op{}, fmt.Errorf("%s: %w", r.method, mcp.ErrClosed)
	}
	o := &op{Op: Op{ID: OpID(opIDs.Add(1)), Kind: r.kind, Method: r.method, Label: r.label, Started: time.Now()}}
	var opts []mcp.CallOption
	if o.Tracked() {
		o.Token = fmt.Sprintf("mcpscope-op-%d", o.ID)
		timeout := s.opts.RequestTimeout
		if r.timeout > 0 {
			timeout = r.timeout
		}
		opts = []mcp.CallOption{mcp.WithProgressToken(o.Token), mcp.WithTimeoutResetOnProgress(), mcp.WithTimeout(timeout)}
	} else if r.timeout > 0 {
		opts = []mcp.CallOption{mcp.WithTimeout(r.timeout)}
	}
	var params any // an untyped nil when there are none: the request has no params member
	if p := s.withLogLevelLocked(r.kind, r.params); p != nil {
		params = p
	}
	if r.rawParams != nil {
		params = r.rawParams
	}
	ctx, cancel := context.WithCancel(s.ctx)
	o.cancel = cancel
	s.ops[o.ID] = o
	s.wg.Add(1)
	s.q.Push(OpStartedEvent{Op: o.Op})
	go s.run(ctx, o, params, opts, r)
	return o.Op, nil
}

// withLogLevelLocked adds the modern era's per-request log level to the
// params of the requests a person starts and of list pages.
func (s *Session) withLogLevelLocked(kind Kind, params map[string]any) map[string]any {
	if s.logLevel == "" || s.handshake == nil || s.handshake.Era != mcp.EraModern || kind == KindComplete || kind == KindPing {
		return params
	}
	out := make(map[string]any, len(params)+1)
	for k, v := range params {
		out[k] = v
	}
	out["_meta"] = map[string]any{mcp.MetaLogLevel: s.logLevel}
	return out
}

func (s *Session) run(ctx context.Context, o *op, params any, opts []mcp.CallOption, r request) {
	defer s.wg.Done()
	defer o.cancel()
	start := time.Now()
	resp, err := s.c.Call(ctx, o.Method, params, opts...)
	done := OpDoneEvent{Op: o.Op, Err: err, Latency: time.Since(start)}
	if resp != nil && resp.Frame != nil {
		done.Frame = resp.Frame
		if resp.Frame.Latency > 0 {
			done.Latency = resp.Frame.Latency
		}
	}
	switch {
	case err != nil:
	case o.Kind == KindPing:
		done.Result = &Pong{RTT: done.Latency}
	case r.decode != nil:
		done.Result, done.Err, done.Problem = r.decode(resp.Result)
	}
	done.Status = statusOf(done.Err)
	if tr, ok := done.Result.(*ToolResult); ok && tr.IsError && done.Status == StatusOK {
		done.Status = StatusError
	}
	s.mu.Lock()
	delete(s.ops, o.ID)
	if o.Kind == KindListen {
		done.Result = &ListenEnded{URIs: r.uris, Superseded: o.superseded}
	}
	s.mu.Unlock()
	done.Time = time.Now()
	evs := []mcp.Event{done}
	if r.after != nil {
		evs = append(evs, r.after(&done)...)
	}
	s.publishAfter(done.Frame, evs...)
}

// statusOf says how an operation ended from its error.
func statusOf(err error) Status {
	var le *mcp.LocalError
	switch {
	case err == nil:
		return StatusOK
	case errors.As(err, &le) && le.Kind == mcp.Cancelled:
		return StatusCancelled
	case errors.As(err, &le) && le.Kind == mcp.Timeout:
		return StatusTimeout
	case errors.As(err, &le):
		return StatusLost
	}
	return StatusError
}

// Cancel cancels an operation in flight: the client sends
// notifications/cancelled and the operation ends as cancelled.
func (s *Session) Cancel(id OpID) error {
	s.mu.Lock()
	o, ok := s.ops[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("operation %d is not running", id)
	}
	o.cancel()
	return nil
}

// CallTool starts tools/call. A tool whose execution.taskSupport allows
// it runs as a task when the server declared task-augmented tools/call
// (2025-11-25); the task is then polled until it ends.
func (s *Session) CallTool(name string, args json.RawMessage) (Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	label := mcp.MethodToolsCall + " " + name
	if s.taskSupportedLocked(name) {
		params["task"] = map[string]any{"ttl": 300000}
		label += " (as a task)"
	}
	return s.startLocked(request{kind: KindTool, method: mcp.MethodToolsCall, label: label, params: params,
		decode: func(raw json.RawMessage) (any, error, error) {
			tr := &ToolResult{Name: name, Args: args, Raw: raw}
			var body struct {
				IsError bool `json:"isError"`
			}
			// Only isError is decoded: the content (20 MB, say) is the
			// result pane's to read.
			small, ok := jsonview.Pick(raw, "isError")
			if !ok {
				small = raw // not an object: json.Unmarshal says why
			}
			if err := json.Unmarshal(small, &body); err != nil {
				return tr, nil, fmt.Errorf("tools/call %s: the result is not a CallToolResult object: %w", name, err)
			}
			tr.IsError = body.IsError
			if t, ok := decodeTask(raw); ok {
				tr.Task = &t
			}
			return tr, nil, nil
		},
		after: func(done *OpDoneEvent) []mcp.Event {
			if tr, ok := done.Result.(*ToolResult); ok && tr.Task != nil {
				return s.taskSeen(*tr.Task)
			}
			return nil
		}})
}

// taskSupportedLocked reports whether a tool may run as a task: its
// execution.taskSupport is "optional" or "required", and the server
// declared tasks.requests.tools.call.
func (s *Session) taskSupportedLocked(name string) bool {
	if s.handshake == nil || !s.handshake.HasCapability("tasks", "requests", "tools", "call") {
		return false
	}
	for _, t := range mcp.ParseTools(s.lists[mcp.MethodToolsList]) {
		if t.Name != name {
			continue
		}
		var ex struct {
			TaskSupport string `json:"taskSupport"`
		}
		if json.Unmarshal(t.Execution, &ex) != nil {
			return false // the doctor flags a malformed execution
		}
		return ex.TaskSupport == "optional" || ex.TaskSupport == "required"
	}
	return false
}

// Request starts any request with its params exactly as given (nil: none),
// as a saved call is sent again. The result is an *Answer; an error answer
// is the OpDoneEvent's Err, its Frame the response.
func (s *Session) Request(method string, params json.RawMessage) (Op, error) {
	label := method
	if name, ok := jsonview.Member(params, "name"); ok {
		if n, ok := jsonview.String(name); ok {
			label += " " + n
		}
	} else if uri, ok := jsonview.Member(params, "uri"); ok {
		if u, ok := jsonview.String(uri); ok {
			label += " " + u
		}
	}
	return s.start(request{kind: KindRequest, method: method, label: label, rawParams: params,
		decode: func(raw json.RawMessage) (any, error, error) { return &Answer{Method: method, Raw: raw}, nil, nil }})
}

// ReadResource starts resources/read.
func (s *Session) ReadResource(uri string) (Op, error) {
	return s.start(request{kind: KindRead, method: mcp.MethodResourcesRead, label: mcp.MethodResourcesRead + " " + uri,
		params: map[string]any{"uri": uri},
		decode: func(raw json.RawMessage) (any, error, error) { return &ReadResult{URI: uri, Raw: raw}, nil, nil }})
}

// GetPrompt starts prompts/get.
func (s *Session) GetPrompt(name string, args map[string]string) (Op, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	return s.start(request{kind: KindPrompt, method: mcp.MethodPromptsGet, label: mcp.MethodPromptsGet + " " + name, params: params,
		decode: func(raw json.RawMessage) (any, error, error) { return &PromptResult{Name: name, Raw: raw}, nil, nil }})
}

// ListPage asks for one page of a list method ("" for the first). A page
// that cannot be read fails the operation with the reason; it is never
// shown as empty.
func (s *Session) ListPage(method, cursor string) (Op, error) {
	if mcp.ListItemsKey(method) == "" {
		return Op{}, fmt.Errorf("%s is not a paginated list method", method)
	}
	var params map[string]any
	if cursor != "" {
		params = map[string]any{"cursor": cursor}
	}
	return s.start(request{kind: KindPage, method: method, label: method, params: params,
		decode: func(raw json.RawMessage) (any, error, error) {
			items, next, err := mcp.DecodePage(method, raw)
			if err != nil {
				if cursor != "" {
					return nil, fmt.Errorf("the page after cursor %q: %w", cursor, err), nil
				}
				return nil, fmt.Errorf("the first page: %w", err), nil
			}
			return &Page{Method: method, Cursor: cursor, Items: items, Next: next}, nil, nil
		},
		after: func(done *OpDoneEvent) []mcp.Event {
			if p, ok := done.Result.(*Page); ok && cursor == "" {
				s.mu.Lock()
				s.lists[method] = p.Items
				s.mu.Unlock()
			}
			return nil
		}})
}

// CompleteRequest is what completion/complete asks about.
type CompleteRequest struct {
	Ref      json.RawMessage // {"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}
	Argument string
	Value    string
	Context  map[string]string // the other arguments typed so far
}

// Complete starts completion/complete.
func (s *Session) Complete(req CompleteRequest) (Op, error) {
	params := map[string]any{"ref": req.Ref, "argument": map[string]string{"name": req.Argument, "value": req.Value}}
	if len(req.Context) > 0 {
		params["context"] = map[string]any{"arguments": req.Context}
	}
	return s.start(request{kind: KindComplete, method: mcp.MethodCompletionComplete, label: mcp.MethodCompletionComplete + " " + req.Argument, params: params,
		decode: func(raw json.RawMessage) (any, error, error) {
			var body struct {
				Completion *struct {
					Values  []string `json:"values"`
					Total   int      `json:"total"`
					HasMore bool     `json:"hasMore"`
				} `json:"completion"`
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				return nil, fmt.Errorf("completion/complete: the result is not a CompleteResult: %w", err), nil
			}
			if body.Completion == nil {
				return nil, errors.New("completion/complete: the result has no completion object"), nil
			}
			c := body.Completion
			return &Completion{Values: c.Values, Total: c.Total, HasMore: c.HasMore}, nil, nil
		}})
}

// Ping sends ping; the result is a *Pong with the round trip.
func (s *Session) Ping() (Op, error) {
	return s.start(request{kind: KindPing, method: mcp.MethodPing, label: mcp.MethodPing, timeout: pingTimeout})
}

// SetLogLevel applies a logging level: logging/setLevel in the legacy era;
// in the modern era (no setLevel) every later request carries it in
// _meta, and the zero Op is returned as nothing was sent. A LogLevelEvent
// says when the level is in force.
func (s *Session) SetLogLevel(level string) (Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handshake != nil && s.handshake.Era == mcp.EraModern {
		s.logLevel = level
		s.q.Push(LogLevelEvent{Time: time.Now(), Level: level, PerRequest: true})
		return Op{}, nil
	}
	return s.startLocked(request{kind: KindSetLevel, method: mcp.MethodLoggingSetLevel, label: mcp.MethodLoggingSetLevel + " " + level,
		params: map[string]any{"level": level},
		after: func(done *OpDoneEvent) []mcp.Event {
			if done.Err != nil {
				return nil
			}
			return []mcp.Event{LogLevelEvent{Time: done.Time, Level: level}}
		}})
}

// Subscribe subscribes to a resource's updates (on) or ends the
// subscription, in either era: resources/subscribe and
// resources/unsubscribe in the legacy era; in the modern era one
// subscriptions/listen stream carries every subscribed URI and is replaced
// when the set changes (the zero Op when the set became empty and the
// stream was closed). SubscriptionEvents report each change.
func (s *Session) Subscribe(uri string, on bool) (Op, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handshake != nil && s.handshake.Era == mcp.EraModern {
		return s.listenLocked(uri, on)
	}
	method := mcp.MethodResourcesUnsubscribe
	if on {
		method = mcp.MethodResourcesSubscribe
	}
	return s.startLocked(request{kind: KindSubscribe, method: method, label: method + " " + uri,
		params: map[string]any{"uri": uri},
		after: func(done *OpDoneEvent) []mcp.Event {
			return []mcp.Event{SubscriptionEvent{Time: done.Time, URI: uri, On: on, Err: done.Err, Method: method}}
		}})
}

// listenLocked replaces the subscriptions/listen stream with one for the
// new set of URIs (and the list-changed notifications), or none.
func (s *Session) listenLocked(uri string, on bool) (Op, error) {
	if s.ended {
		return Op{}, fmt.Errorf("%s: %w", mcp.MethodSubscriptionsListen, mcp.ErrClosed)
	}
	if on {
		s.listenURIs[uri] = true
	} else {
		delete(s.listenURIs, uri)
	}
	if old, ok := s.ops[s.listenOp]; ok {
		old.superseded = true
		old.cancel()
	}
	s.listenOp = 0
	uris := make([]string, 0, len(s.listenURIs))
	for u := range s.listenURIs {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	s.q.Push(SubscriptionEvent{Time: time.Now(), URI: uri, On: on, Method: mcp.MethodSubscriptionsListen, Listening: uris})
	if len(uris) == 0 {
		return Op{}, nil
	}
	var id OpID
	o, err := s.startLocked(request{kind: KindListen, method: mcp.MethodSubscriptionsListen, label: mcp.MethodSubscriptionsListen + " " + strings.Join(uris, " "),
		timeout: listenLifetime,
		params: map[string]any{"notifications": map[string]any{
			"toolsListChanged":      true,
			"promptsListChanged":    true,
			"resourcesListChanged":  true,
			"resourceSubscriptions": uris,
		}},
		uris: uris,
		after: func(done *OpDoneEvent) []mcp.Event {
			if l, ok := done.Result.(*ListenEnded); done.Err == nil || ok && l.Superseded {
				return nil
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.listenOp != id {
				return nil // replaced meanwhile
			}
			var evs []mcp.Event
			for _, u := range uris {
				if s.listenURIs[u] {
					evs = append(evs, SubscriptionEvent{Time: done.Time, URI: u, Err: done.Err, Method: mcp.MethodSubscriptionsListen})
				}
			}
			s.listenURIs, s.listenOp = map[string]bool{}, 0
			return evs
		}})
	id = o.ID
	s.listenOp = id
	return o, err
}

// TaskResult starts tasks/result.
func (s *Session) TaskResult(taskID string) (Op, error) {
	return s.start(request{kind: KindTaskResult, method: mcp.MethodTasksResult, label: mcp.MethodTasksResult + " " + taskID,
		params: map[string]any{"taskId": taskID},
		decode: func(raw json.RawMessage) (any, error, error) {
			p := &TaskPayload{TaskID: taskID, Raw: raw}
			var body struct {
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				return p, nil, fmt.Errorf("tasks/result %s: the result is not an object: %w", taskID, err)
			}
			p.Content = body.Content
			return p, nil, nil
		}})
}

// CancelTask starts tasks/cancel.
func (s *Session) CancelTask(taskID string) (Op, error) {
	return s.start(s.taskRequest(KindTaskCancel, mcp.MethodTasksCancel, taskID))
}

// taskRequest is tasks/get or tasks/cancel: both answer with the task.
func (s *Session) taskRequest(kind Kind, method, taskID string) request {
	return request{kind: kind, method: method, label: method + " " + taskID,
		params: map[string]any{"taskId": taskID},
		decode: func(raw json.RawMessage) (any, error, error) {
			t, ok := decodeTask(raw)
			if !ok {
				return nil, fmt.Errorf("%s %s: the result is not a task", method, taskID), nil
			}
			return &t, nil, nil
		},
		after: func(done *OpDoneEvent) []mcp.Event {
			if t, ok := done.Result.(*Task); ok {
				return s.taskSeen(*t)
			}
			return nil
		}}
}

// NotifyRootsChanged tells the server the roots changed
// (notifications/roots/list_changed). The modern era removed that
// notification: sent is false and the next input request gets the new
// list. A NotifiedEvent reports the outcome of a sent notification.
func (s *Session) NotifyRootsChanged() (sent bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return false, fmt.Errorf("notifications/roots/list_changed: %w", mcp.ErrClosed)
	case s.handshake == nil:
		return false, errors.New("notifications/roots/list_changed: not connected yet; the server asks for roots after the handshake")
	case s.handshake.Era == mcp.EraModern:
		return false, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		const method = mcp.NotifyRootsListChanged
		err := s.c.Notify(s.ctx, method, nil)
		s.publish(NotifiedEvent{Time: time.Now(), Method: method, Err: err})
	}()
	return true, nil
}

// Allowed is what a server's handshake lets a correct client do; a front
// end shows the rest as unavailable (with a way to send anyway).
type Allowed struct {
	Tools, Resources, Prompts, Logging bool // the capability was declared
	Subscribe                          bool // resources.subscribe
	// Completions: the completions capability, or protocol 2024-11-05,
	// which had completion/complete before the capability existed.
	Completions bool
	// PerRequestLogLevel: the modern era has no logging/setLevel; the
	// level travels in each request's _meta.
	PerRequestLogLevel bool
}

// AllowedBy reads a handshake; a nil handshake allows nothing.
func AllowedBy(hs *mcp.Handshake) Allowed {
	if hs == nil {
		return Allowed{}
	}
	return Allowed{
		Tools:              hs.HasCapability("tools"),
		Resources:          hs.HasCapability("resources"),
		Prompts:            hs.HasCapability("prompts"),
		Logging:            hs.HasCapability("logging"),
		Subscribe:          hs.HasCapability("resources", "subscribe"),
		Completions:        hs.HasCapability("completions") || hs.ProtocolVersion == mcp.Version20241105,
		PerRequestLogLevel: hs.Era == mcp.EraModern,
	}
}
