package session

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// OpID numbers the requests a Session starts. IDs are unique in the
// process, not only in one session, so a late result of a closed session
// never answers to an operation of the next one.
type OpID int64

// Kind says what an operation is for.
type Kind uint8

// The kinds of operation.
const (
	KindTool       Kind = iota + 1 // tools/call
	KindRead                       // resources/read
	KindPrompt                     // prompts/get
	KindPage                       // one page of a list method
	KindComplete                   // completion/complete
	KindSetLevel                   // logging/setLevel (legacy era)
	KindPing                       // ping
	KindSubscribe                  // resources/subscribe or resources/unsubscribe (legacy era)
	KindListen                     // the subscriptions/listen stream (modern era)
	KindTaskGet                    // tasks/get (the poller's)
	KindTaskResult                 // tasks/result
	KindTaskCancel                 // tasks/cancel
	KindRequest                    // any request, its params as given (a saved call)
)

// Op is one request a Session started.
type Op struct {
	ID      OpID
	Kind    Kind
	Method  string
	Label   string // e.g. "tools/call echo (as a task)"
	Token   string // the progress token sent with it, "" when none
	Started time.Time
}

// Tracked reports whether the operation is one a person waits for and may
// cancel (shown as a running request), rather than a quick look-up (a page,
// a completion, a ping).
func (o Op) Tracked() bool {
	switch o.Kind {
	case KindPage, KindComplete, KindPing:
		return false
	}
	return o.Kind != 0
}

// Status is how an operation ended.
type Status uint8

// The statuses of a finished operation.
const (
	StatusOK        Status = iota + 1
	StatusError            // the server answered with an error (or a tool with isError: true), or the answer could not be used
	StatusCancelled        // cancelled by the user (notifications/cancelled was sent)
	StatusTimeout          // no answer in time
	StatusLost             // the connection went away
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusError:
		return "error"
	case StatusCancelled:
		return "cancelled"
	case StatusTimeout:
		return "timed out"
	case StatusLost:
		return "lost"
	}
	return "unknown"
}

// OpStartedEvent is published when an operation starts, before its request
// frame.
type OpStartedEvent struct{ Op Op }

// OpDoneEvent is an operation's outcome, published after its response
// frame. Result is one of *ToolResult, *ReadResult, *PromptResult, *Page,
// *Completion, *Pong, *TaskPayload, *Task or *Answer, or nil when Err says why
// there is none; a listen stream's is always a *ListenEnded.
type OpDoneEvent struct {
	Time    time.Time
	Op      Op
	Status  Status
	Err     error         // *mcp.RPCError (the server's), *mcp.LocalError (mcpscope's), or why the answer was unusable
	Latency time.Duration // from the request to its answer or failure
	Frame   *mcp.Frame    // the response frame, nil when there was none
	Result  any
	// Problem is set when the answer was shown but a part the session
	// reads (isError, a task) could not be decoded.
	Problem error
}

// ToolResult is a tools/call answer.
type ToolResult struct {
	Name    string
	Args    json.RawMessage
	Raw     json.RawMessage // the result, exactly as sent
	IsError bool
	Task    *Task // set when the call created a task (2025-11-25 tasks)
}

// Answer is a Request's result, exactly as sent.
type Answer struct {
	Method string
	Raw    json.RawMessage
}

// ReadResult is a resources/read answer.
type ReadResult struct {
	URI string
	Raw json.RawMessage
}

// PromptResult is a prompts/get answer.
type PromptResult struct {
	Name string
	Raw  json.RawMessage
}

// Page is one page of a paginated list.
type Page struct {
	Method string
	Cursor string // the cursor that asked for it, "" for the first page
	Items  []json.RawMessage
	Next   string // nextCursor, "" on the last page
}

// Completion is a completion/complete answer.
type Completion struct {
	Values  []string
	Total   int
	HasMore bool
}

// Pong is a ping's round trip.
type Pong struct{ RTT time.Duration }

// TaskPayload is a tasks/result answer: the task's content when it has
// one, and the raw result.
type TaskPayload struct {
	TaskID  string
	Content json.RawMessage
	Raw     json.RawMessage
}

// ListenEnded is the end of a subscriptions/listen stream. Superseded
// streams were replaced on purpose by one with a new set of URIs.
type ListenEnded struct {
	URIs       []string
	Superseded bool
}

// Task is a task's state (2025-11-25 tasks).
type Task struct {
	ID            string
	Status        string
	StatusMessage string
	PollInterval  time.Duration // 0 when the server gave none
}

// Terminal reports whether the task can no longer change.
func (t Task) Terminal() bool {
	switch t.Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// TaskEvent reports a task's state: from the call that created it, a
// tasks/get or tasks/cancel answer, or notifications/tasks/status.
type TaskEvent struct {
	Time time.Time
	Task Task
}

// ProgressEvent is a notifications/progress, published right after its
// frame.
type ProgressEvent struct {
	Time     time.Time
	Token    string
	Progress float64
	Total    *float64
	Message  string
}

// LogMessageEvent is a notifications/message, published right after its
// frame. Params are the notification's params as sent; Frame is the
// notification itself, which the server log opens in the detail view.
type LogMessageEvent struct {
	Time   time.Time
	Params json.RawMessage
	Frame  *mcp.Frame
}

// ResourceUpdatedEvent is a notifications/resources/updated.
type ResourceUpdatedEvent struct {
	Time time.Time
	URI  string
}

// SubscriptionEvent reports a change of a resource subscription, in
// either era. Method is resources/subscribe, resources/unsubscribe or
// subscriptions/listen; Listening is the set of URIs the modern era's
// stream now carries (empty when the stream was closed).
type SubscriptionEvent struct {
	Time      time.Time
	URI       string
	On        bool
	Err       error
	Method    string
	Listening []string
}

// LogLevelEvent reports a logging level in force: after logging/setLevel
// succeeded (legacy era), or at once in the modern era, where every later
// request carries it in _meta (PerRequest).
type LogLevelEvent struct {
	Time       time.Time
	Level      string
	PerRequest bool
}

// ElicitationEvent follows a URL elicitation: accepted by the user, then
// completed by the server's notifications/elicitation/complete. Known is
// false for a completion of an elicitation that was never accepted.
type ElicitationEvent struct {
	Time      time.Time
	ID        string
	Completed bool
	Known     bool
}

// ListChangedEvent is the re-list that followed a list_changed
// notification: the complete list (every page), and what changed since the
// list the session knew. Known is false when there was no earlier list.
type ListChangedEvent struct {
	Time   time.Time
	Method string
	Items  []json.RawMessage
	Err    error
	Known  bool
	Diff   Diff
}

// ListChangeIgnoredEvent reports a list_changed for a capability the
// server did not declare: a correct client does not follow it.
type ListChangeIgnoredEvent struct {
	Time       time.Time
	Method     string
	Capability string
}

// UnreadableEvent reports a notification the session follows (progress, a
// task's status, a resource update, an elicitation's completion) whose
// params it could not read: nothing was derived from it.
type UnreadableEvent struct {
	Time   time.Time
	Seq    int64 // the notification's frame
	Method string
	Err    error
}

// NotifiedEvent is the outcome of a notification the session sent on the
// user's behalf (notifications/roots/list_changed).
type NotifiedEvent struct {
	Time   time.Time
	Method string
	Err    error
}

// Diff is what changed between two versions of a list, by item key (a
// tool's or prompt's name, a resource's URI, a template's uriTemplate).
// Changed tools say whether their schema changed.
type Diff struct {
	Added, Removed, Changed []string
}

// Empty reports whether nothing changed.
func (d Diff) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// String is the diff in words, e.g. "added b; removed a; changed c (schema changed)".
func (d Diff) String() string {
	var parts []string
	if len(d.Added) > 0 {
		parts = append(parts, "added "+strings.Join(d.Added, ", "))
	}
	if len(d.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(d.Removed, ", "))
	}
	if len(d.Changed) > 0 {
		parts = append(parts, "changed "+strings.Join(d.Changed, ", "))
	}
	return strings.Join(parts, "; ")
}

// At is when the OpStartedEvent happened.
func (e OpStartedEvent) At() time.Time { return e.Op.Started }

// At is when the OpDoneEvent happened.
func (e OpDoneEvent) At() time.Time { return e.Time }

// At is when the TaskEvent happened.
func (e TaskEvent) At() time.Time { return e.Time }

// At is when the ProgressEvent happened.
func (e ProgressEvent) At() time.Time { return e.Time }

// At is when the LogMessageEvent happened.
func (e LogMessageEvent) At() time.Time { return e.Time }

// At is when the ResourceUpdatedEvent happened.
func (e ResourceUpdatedEvent) At() time.Time { return e.Time }

// At is when the SubscriptionEvent happened.
func (e SubscriptionEvent) At() time.Time { return e.Time }

// At is when the LogLevelEvent happened.
func (e LogLevelEvent) At() time.Time { return e.Time }

// At is when the ElicitationEvent happened.
func (e ElicitationEvent) At() time.Time { return e.Time }

// At is when the ListChangedEvent happened.
func (e ListChangedEvent) At() time.Time { return e.Time }

// At is when the ListChangeIgnoredEvent happened.
func (e ListChangeIgnoredEvent) At() time.Time { return e.Time }

// At is when the NotifiedEvent happened.
func (e NotifiedEvent) At() time.Time { return e.Time }

// At is when the UnreadableEvent happened.
func (e UnreadableEvent) At() time.Time { return e.Time }
