package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpscope/mcpscope/mcp/openurl"
	"os"
	"path"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/panes"
)

// opKind says what a finished request's result is for.
type opKind uint8

const (
	opTool opKind = iota + 1
	opRead
	opPrompt
	opPage
	opSubscribe
	opSetLevel
	opTaskResult
	opTaskCancel
	opTaskGet
	opListen // the modern era's subscriptions/listen stream
)

// op is a request started from the UI. Its cancel func is the cancel key:
// cancelling the context makes the client send notifications/cancelled.
type op struct {
	id     int
	kind   opKind
	label  string
	method string
	params map[string]any
	cancel context.CancelFunc
	// what the result is for: the tool call, the URI, the page's cursor.
	tool   panes.CallToolMsg
	uri    string
	on     bool
	cursor string
	level  string
	task   string
	// timeout overrides the request timeout (a listen stream lives until
	// it is replaced); superseded marks a listen stream that was replaced
	// on purpose, whose end is not a failure.
	timeout    time.Duration
	superseded bool
}

// opDoneMsg is a request's outcome.
type opDoneMsg struct {
	id      int
	resp    *mcp.Response
	err     error
	latency time.Duration
}

type tickMsg time.Time

// pingMsg is the outcome of a ping.
type pingMsg struct {
	rtt time.Duration
	err error
}

// notedMsg is the outcome of a Cmd that only reports (a save, a browser).
type notedMsg struct {
	text string
	ok   bool
}

// completedMsg routes a completion answer to the pane that asked.
type completedMsg struct {
	focus focus
	msg   panes.CompletionsMsg
}

// listedPageMsg is one page of a list method.
type listedPageMsg struct {
	gen    int
	method string
	cursor string
	items  []json.RawMessage
	next   string
	err    error
}

func (m *Model) setNote(s string, ok bool) { m.note, m.noteOK, m.toolStatus = s, ok, "" }

func (m *Model) requestTimeout() time.Duration {
	if m.cfg.RequestTimeout > 0 {
		return m.cfg.RequestTimeout
	}
	return 60 * time.Second
}

// withLogLevel adds the modern era's per-request log level to params.
func (m *Model) withLogLevel(params map[string]any) map[string]any {
	if m.logLevel == "" || m.handshake == nil || m.handshake.Era != mcp.EraModern {
		return params
	}
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{mcp.MetaLogLevel: m.logLevel}
	return params
}

// startOp runs a request as a Cmd, with a progress token, a timeout that
// restarts on progress, and a cancel func kept for the cancel key.
func (m *Model) startOp(o *op) tea.Cmd {
	m.nextOp++
	o.id = m.nextOp
	c := m.client
	if c == nil {
		id := o.id
		m.ops[id] = o
		return func() tea.Msg { return opDoneMsg{id: id, err: mcp.ErrClosed} }
	}
	ctx, cancel := context.WithCancel(m.ctx)
	o.cancel = cancel
	m.ops[o.id] = o
	token := fmt.Sprintf("mcpscope-op-%d", o.id)
	now := time.Now()
	m.activity.SetNow(now)
	m.activity.Start(panes.Op{ID: o.id, Label: o.label, Token: token, Started: now})
	params := m.withLogLevel(o.params)
	timeout := m.requestTimeout()
	if o.timeout > 0 {
		timeout = o.timeout
	}
	opts := []mcp.CallOption{mcp.WithProgressToken(token), mcp.WithTimeoutResetOnProgress(), mcp.WithTimeout(timeout)}
	id, method := o.id, o.method
	var p any = params
	if params == nil {
		p = nil
	}
	call := func() tea.Msg {
		defer cancel()
		start := time.Now()
		resp, err := c.Call(ctx, method, p, opts...)
		lat := time.Since(start)
		if resp != nil && resp.Frame != nil && resp.Frame.Latency > 0 {
			lat = resp.Frame.Latency
		}
		return opDoneMsg{id: id, resp: resp, err: err, latency: lat}
	}
	return tea.Batch(call, m.tick())
}

func (m *Model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(200*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// cancelOp cancels a request in flight; the client sends
// notifications/cancelled and the op ends as cancelled.
func (m *Model) cancelOp(id int) {
	if o, ok := m.ops[id]; ok && o.cancel != nil {
		o.cancel()
		m.setNote("cancelling "+o.label+" (notifications/cancelled sent)", true)
	}
}

func opStatus(err error) string {
	var le *mcp.LocalError
	switch {
	case err == nil:
		return panes.OpOK
	case errors.As(err, &le) && le.Kind == mcp.Cancelled:
		return panes.OpCancelled
	case errors.As(err, &le) && le.Kind == mcp.Timeout:
		return panes.OpTimeout
	case errors.As(err, &le):
		return panes.OpLost
	}
	return panes.OpError
}

// handleOpDone routes a finished request's result to where it is shown.
func (m *Model) handleOpDone(msg opDoneMsg) tea.Cmd {
	o, ok := m.ops[msg.id]
	if !ok {
		return nil
	}
	delete(m.ops, msg.id)
	status := opStatus(msg.err)
	if status == panes.OpOK && o.kind == opTool && msg.resp != nil && mcp.IsToolError(msg.resp.Result) {
		status = panes.OpError
	}
	m.activity.End(msg.id, status, time.Now())
	var result json.RawMessage
	if msg.resp != nil && msg.err == nil {
		result = msg.resp.Result
	}
	fail := func(what string) {
		m.setNote(what+": "+msg.err.Error(), false)
	}
	switch o.kind {
	case opTool:
		return m.toolDone(o, msg)
	case opRead:
		if msg.err != nil {
			fail("resources/read " + o.uri)
			return nil
		}
		m.resources.SetRead(o.uri, result)
		m.content.Set("resources/read "+o.uri, panes.ReadResultLines(m.theme, result))
		m.setNote(fmt.Sprintf("read %s in %v", o.uri, msg.latency.Round(time.Millisecond)), true)
		m.openOver(modalContent)
	case opPrompt:
		if msg.err != nil {
			fail("prompts/get " + o.label)
			return nil
		}
		m.content.Set(o.label, panes.PromptResultLines(m.theme, result))
		m.setNote(o.label+" ok", true)
		m.openOver(modalContent)
	case opListen:
		if o.superseded {
			return nil // replaced by a listen with the new set of URIs
		}
		if msg.err != nil {
			for uri := range m.listenURIs {
				m.resources.SetSubscribed(uri, false, msg.err)
			}
			m.listenURIs = map[string]bool{}
			fail(mcp.MethodSubscriptionsListen)
		} else {
			m.setNote("the server ended the subscriptions/listen stream", false)
		}
	case opSubscribe:
		m.resources.SetSubscribed(o.uri, o.on, msg.err)
		if msg.err != nil {
			fail(o.label)
		} else {
			m.setNote(o.label+" ok", true)
		}
	case opSetLevel:
		if msg.err != nil {
			fail(mcp.MethodLoggingSetLevel)
			return nil
		}
		m.serverLog.SetLevel(o.level)
		m.setNote("log level set to "+o.level, true)
	case opTaskResult:
		if msg.err != nil {
			fail("tasks/result " + o.task)
			return nil
		}
		var body struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(result, &body)
		lines := panes.BlockLines(m.theme, body.Content)
		if len(body.Content) == 0 {
			lines = panes.BlockLines(m.theme, result)
		}
		m.content.Set("tasks/result "+o.task, lines)
		m.openOver(modalContent)
	case opTaskCancel, opTaskGet:
		if msg.err != nil {
			fail(o.label)
			return nil
		}
		poll, _ := m.applyTask(result)
		if o.kind == opTaskCancel {
			m.setNote(o.label+" ok", true)
		}
		return poll
	}
	return nil
}

// openOver opens a result modal unless the user is answering the server.
func (m *Model) openOver(md modal) {
	if m.modal == modalAsk {
		return
	}
	if m.modal != modalNone {
		m.closeModal()
	}
	m.openModal(md)
}

// taskFields is the part of a Task (or a CreateTaskResult's task) the UI reads.
type taskFields struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	PollInterval  *int64 `json:"pollInterval"` // milliseconds
}

// taskPollMsg asks for the next tasks/get of a task.
type taskPollMsg struct {
	gen    int
	taskID string
}

// Poll intervals are the server's pollInterval, kept within bounds so that
// a server asking for 1 ms does not flood the log and one asking for an
// hour does not look stuck.
const (
	defaultTaskPoll = time.Second
	minTaskPoll     = 250 * time.Millisecond
	maxTaskPoll     = 30 * time.Second
)

// applyTask records a Task object (or a CreateTaskResult's task) and, while
// the task is not finished, schedules its next tasks/get honouring the
// server's pollInterval (2025-11-25 tasks: "poll tasks/get"). The Cmd is
// nil when nothing needs scheduling; ok reports whether raw was a task.
func (m *Model) applyTask(raw json.RawMessage) (tea.Cmd, bool) {
	var t struct {
		Task *taskFields `json:"task"`
		taskFields
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil, false
	}
	if t.Task != nil {
		t.taskFields = *t.Task
	}
	if t.TaskID == "" {
		return nil, false
	}
	m.activity.SetTask(t.TaskID, t.Status, t.StatusMessage, time.Now())
	switch t.Status {
	case "completed", "failed", "cancelled":
		return nil, true // terminal: never changes again
	}
	if m.polling[t.TaskID] {
		return nil, true
	}
	m.polling[t.TaskID] = true
	every := defaultTaskPoll
	if t.PollInterval != nil {
		every = min(max(time.Duration(*t.PollInterval)*time.Millisecond, minTaskPoll), maxTaskPoll)
	}
	gen, id := m.gen, t.TaskID
	return tea.Tick(every, func(time.Time) tea.Msg { return taskPollMsg{gen: gen, taskID: id} }), true
}

// pollTask sends the scheduled tasks/get, unless the connection changed.
func (m *Model) pollTask(msg taskPollMsg) tea.Cmd {
	delete(m.polling, msg.taskID)
	if msg.gen != m.gen || m.client == nil {
		return nil
	}
	return m.startOp(&op{kind: opTaskGet, label: "tasks/get " + msg.taskID, method: mcp.MethodTasksGet,
		params: map[string]any{"taskId": msg.taskID}, task: msg.taskID})
}

// callTool starts tools/call; a tool whose execution.taskSupport allows it
// runs as a task when the server declared task-augmented tools/call.
func (m *Model) callTool(msg panes.CallToolMsg) tea.Cmd {
	params := map[string]any{"name": msg.Name}
	if len(msg.Args) > 0 {
		params["arguments"] = msg.Args
	}
	label := "tools/call " + msg.Name
	if m.taskSupported(msg.Name) {
		params["task"] = map[string]any{"ttl": 300000}
		label += " (as a task)"
	}
	return m.startOp(&op{kind: opTool, label: label, method: mcp.MethodToolsCall, params: params, tool: msg})
}

// taskSupported reports whether a tool may run as a task: its
// execution.taskSupport is "optional" or "required", and the server
// declared tasks.requests.tools.call (2025-11-25).
func (m *Model) taskSupported(name string) bool {
	if m.handshake == nil || !m.handshake.HasCapability("tasks", "requests", "tools", "call") {
		return false
	}
	tp, ok := m.tools.(interface{ Tools() []mcp.Tool })
	if !ok {
		return false
	}
	for _, t := range tp.Tools() {
		if t.Name != name {
			continue
		}
		var ex struct {
			TaskSupport string `json:"taskSupport"`
		}
		_ = json.Unmarshal(t.Execution, &ex)
		return ex.TaskSupport == "optional" || ex.TaskSupport == "required"
	}
	return false
}

// outputSchema is the listed tool's outputSchema, nil when it has none.
func (m *Model) outputSchema(name string) json.RawMessage {
	tp, ok := m.tools.(interface{ Tools() []mcp.Tool })
	if !ok {
		return nil
	}
	for _, t := range tp.Tools() {
		if t.Name == name {
			return t.OutputSchema
		}
	}
	return nil
}

func (m *Model) toolDone(o *op, msg opDoneMsg) tea.Cmd {
	res := panes.ToolResultMsg{Name: o.tool.Name, Args: o.tool.Args, Latency: msg.latency, OutputSchema: m.outputSchema(o.tool.Name)}
	var frame *mcp.Frame
	if msg.resp != nil && msg.resp.Frame != nil {
		res.Seq, frame = msg.resp.Frame.Seq, msg.resp.Frame
	}
	var rpcErr *mcp.RPCError
	switch {
	case errors.As(msg.err, &rpcErr):
		res.RPCError = rpcErr
	case msg.err != nil:
		res.Err = msg.err
	default:
		res.Result = msg.resp.Result
		if poll, ok := m.applyTask(msg.resp.Result); ok {
			m.setNote("tools/call "+o.tool.Name+" created a task: see Activity (7); o fetches its result", true)
			return poll
		}
	}
	return m.handleResult(toolCalledMsg{result: res, frame: frame})
}

// listPage fetches one page of a list method.
func (m *Model) listPage(method, cursor string) tea.Cmd {
	c, gen, ctx := m.client, m.gen, m.ctx
	if c == nil {
		return nil
	}
	var params any
	if cursor != "" {
		params = map[string]string{"cursor": cursor}
	}
	params = m.withLogLevelAny(params)
	return func() tea.Msg {
		resp, err := c.Call(ctx, method, params)
		out := listedPageMsg{gen: gen, method: method, cursor: cursor, err: err}
		if err == nil {
			var body map[string]json.RawMessage
			_ = json.Unmarshal(resp.Result, &body)
			_ = json.Unmarshal(body[mcp.ListItemsKey(method)], &out.items)
			_ = json.Unmarshal(body["nextCursor"], &out.next)
		}
		return out
	}
}

func (m *Model) withLogLevelAny(p any) any {
	if mp, ok := p.(map[string]string); ok {
		out := map[string]any{}
		for k, v := range mp {
			out[k] = v
		}
		return m.withLogLevel(out)
	}
	if r := m.withLogLevel(nil); r != nil {
		return r
	}
	return p
}

func (m *Model) applyPage(msg listedPageMsg) {
	if msg.err != nil {
		m.setNote(msg.method+": "+msg.err.Error(), false)
		return
	}
	first := msg.cursor == ""
	switch msg.method {
	case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
		m.resources.SetPage(msg.method, msg.items, first, msg.next)
	case mcp.MethodPromptsList:
		m.prompts.SetPage(msg.items, first, msg.next)
	case mcp.MethodToolsList:
		m.tools.SetTools(mcp.ParseTools(msg.items))
	}
	if first {
		m.lists[msg.method] = msg.items
		m.caps.SetList(msg.method, msg.items)
	}
	n := fmt.Sprintf("%s: %d item(s)", msg.method, len(msg.items))
	if msg.next != "" {
		n += "; more on the server (m loads the next page)"
	}
	m.setNote(n, true)
}

// complete runs completion/complete for a form.
func (m *Model) complete(f focus, msg panes.CompleteMsg) tea.Cmd {
	c, ctx := m.client, m.ctx
	if c == nil {
		return nil
	}
	params := map[string]any{"ref": msg.Ref, "argument": map[string]string{"name": msg.Arg, "value": msg.Value}}
	if len(msg.Context) > 0 {
		params["context"] = map[string]any{"arguments": msg.Context}
	}
	return func() tea.Msg {
		resp, err := c.Call(ctx, mcp.MethodCompletionComplete, params)
		out := panes.CompletionsMsg{Seq: msg.Seq, Err: err}
		if err == nil {
			var body struct {
				Completion struct {
					Values  []string `json:"values"`
					Total   int      `json:"total"`
					HasMore bool     `json:"hasMore"`
				} `json:"completion"`
			}
			_ = json.Unmarshal(resp.Result, &body)
			out.Values, out.Total, out.More = body.Completion.Values, body.Completion.Total, body.Completion.HasMore
		}
		return completedMsg{focus: f, msg: out}
	}
}

// ping sends ping and measures the round trip.
func (m *Model) ping() tea.Cmd {
	c, ctx := m.client, m.ctx
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		start := time.Now()
		resp, err := c.Call(ctx, mcp.MethodPing, nil, mcp.WithTimeout(10*time.Second))
		rtt := time.Since(start)
		if resp != nil && resp.Frame != nil && resp.Frame.Latency > 0 {
			rtt = resp.Frame.Latency
		}
		return pingMsg{rtt: rtt, err: err}
	}
}

// saveBlob writes a resource's blob into the working directory.
func saveBlob(msg panes.SaveBlobMsg) tea.Cmd {
	return func() tea.Msg {
		name := path.Base(msg.URI)
		if name == "" || name == "." || name == "/" || strings.ContainsAny(name, `\:`) {
			name = "resource.bin"
		}
		name, err := writeNew("mcpscope-"+name, msg.Data)
		if err != nil {
			return notedMsg{text: "save: " + err.Error(), ok: false}
		}
		return notedMsg{text: fmt.Sprintf("saved %d bytes of %s to ./%s", len(msg.Data), msg.URI, name), ok: true}
	}
}

// writeNew writes data to name in the working directory without replacing
// a file that is already there: name-1.ext, name-2.ext, ... are tried.
func writeNew(name string, data []byte) (string, error) {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		candidate := name
		if i > 0 {
			candidate = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		f, err := os.OpenFile(candidate, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			_ = f.Close()
			return "", err
		}
		return candidate, f.Close()
	}
	return "", fmt.Errorf("%s and 999 numbered variants already exist", name)
}

// openURL opens a URL elicitation's page, only ever on the user's key
// and only an http(s) URL (package openurl holds the rule).
func openURL(u string) tea.Cmd {
	return func() tea.Msg {
		opener, err := openurl.Open(u)
		if err != nil {
			return notedMsg{text: "not opened: " + err.Error(), ok: false}
		}
		return notedMsg{text: "opened the URL with " + opener, ok: true}
	}
}
