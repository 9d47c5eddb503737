package panes

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// Op statuses.
const (
	OpRunning   = "running"
	OpOK        = "ok"
	OpError     = "error"
	OpCancelled = "cancelled"
	OpTimeout   = "timed out"
	OpLost      = "lost"
)

// Op is one request the UI started: its progress (from
// notifications/progress), its outcome and timing.
type Op struct {
	ID      int
	Label   string // "tools/call slow_count"
	Token   string // the progress token it carries
	Started time.Time
	Ended   time.Time
	// Took is the request's latency as the log and the result view time
	// it (from its frame to the answer's), once it ended; 0 when unknown.
	Took     time.Duration
	Status   string
	Progress float64
	Total    float64 // 0 when the server gave none
	Message  string
	Notes    int        // progress notifications received
	Frame    *mcp.Frame // the answer, once there is one (enter opens it)
}

// Task is one task (2025-11-25 experimental tasks) as last reported by
// tasks/get or notifications/tasks/status.
type Task struct {
	ID, Status, Message string
	Updated             time.Time
}

// Activity lists the UI's requests with a progress bar for those that
// receive notifications/progress, a cancel key, and the tasks the server
// created. It is a panes/list list: one row an item (requests, then
// tasks), paging, g/G, the wheel, W and ←/→ for long rows; enter opens a
// request's answer frame, or what is known of it while there is none.
type Activity struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	ops     []*Op
	tasks   []*Task
	now     time.Time
	bar     progress.Model
	list    *list.Model
}

// NewActivity makes the activity pane.
func NewActivity(t *themes.Theme, k keymap.KeyMap) *Activity {
	a := &Activity{theme: t, keys: k}
	sc := k.Scroll
	sc.Up, sc.Down = k.Explore.Up, k.Explore.Down
	a.list = list.New(sc, a.line)
	a.list.SetSelecting(true)
	a.SetTheme(t)
	return a
}

func (a *Activity) SetTheme(t *themes.Theme) {
	a.theme = t
	opts := []progress.Option{progress.WithoutPercentage(), progress.WithFillCharacters('█', '░')}
	if !t.Plain && t.Palette.Primary != nil && t.Palette.Border != nil {
		opts = append(opts, progress.WithColors(t.Palette.Primary))
	}
	a.bar = progress.New(opts...)
	switch {
	case t.Plain:
		a.bar.FullColor, a.bar.EmptyColor = nil, nil
	case t.Palette.Border != nil:
		a.bar.EmptyColor = t.Palette.Border
	}
}

func (a *Activity) Title() string {
	running := 0
	for _, o := range a.ops {
		if o.Status == OpRunning {
			running++
		}
	}
	s := fmt.Sprintf("Activity (%d running)", running)
	if len(a.tasks) > 0 {
		s += fmt.Sprintf(" · Tasks (%d)", len(a.tasks))
	}
	return s
}
func (a *Activity) SetSize(w, h int) {
	a.w, a.h = w, h
	a.list.SetSize(max(w-4, 0), max(h-2, 0)) // two cells for the cursor gutter
}
func (a *Activity) Focus() { a.focused = true }
func (a *Activity) Blur()  { a.focused = false }

// SetNow sets the clock elapsed times are drawn against (the root model's
// tick), so rendering stays a pure function of state.
func (a *Activity) SetNow(t time.Time) { a.now = t }

// Start adds a running request.
func (a *Activity) Start(op Op) {
	op.Status = OpRunning
	a.ops = append(a.ops, &op)
	a.list.Insert(len(a.ops)-1, 1) // before the tasks
	a.list.Select(len(a.ops) - 1)
}

// Answered keeps the answer frame of request id, for enter to open.
func (a *Activity) Answered(id int, f *mcp.Frame) {
	if o := a.Op(id); o != nil && f != nil {
		o.Frame = f
	}
}

// Op finds a request by id.
func (a *Activity) Op(id int) *Op {
	for _, o := range a.ops {
		if o.ID == id {
			return o
		}
	}
	return nil
}

// Ops is every request, oldest first.
func (a *Activity) Ops() []*Op { return a.ops }

// Progress applies a notifications/progress to the request with token. It
// reports whether a request of ours carries that token.
func (a *Activity) Progress(token string, progress float64, total *float64, message string) bool {
	for _, o := range a.ops {
		if o.Token == token && token != "" {
			o.Progress, o.Message = progress, message
			if total != nil {
				o.Total = *total
			}
			o.Notes++
			return true
		}
	}
	return false
}

// End marks a request finished with a status.
func (a *Activity) End(id int, status string, at time.Time, took time.Duration) {
	if o := a.Op(id); o != nil && o.Status == OpRunning {
		o.Status, o.Ended, o.Took = status, at, took
	}
}

// took is how long a request took or has been running: an ended one's
// latency to the millisecond (what the log and the result view say), a
// running one's elapsed time to the tenth of a second.
func (o *Op) took(now time.Time) string {
	switch {
	case o.Status != OpRunning && o.Took > 0:
		return fmtLatency(o.Took)
	case o.Status != OpRunning:
		return fmtLatency(max(o.Ended.Sub(o.Started), 0))
	}
	return max(now.Sub(o.Started).Round(100*time.Millisecond), 0).String()
}

// Running is the newest request still running, or nil.
func (a *Activity) Running() *Op {
	for i := len(a.ops) - 1; i >= 0; i-- {
		if a.ops[i].Status == OpRunning {
			return a.ops[i]
		}
	}
	return nil
}

// SetTask records a task's status.
func (a *Activity) SetTask(id, status, message string, at time.Time) {
	for _, t := range a.tasks {
		if t.ID == id {
			t.Status, t.Message, t.Updated = status, message, at
			return
		}
	}
	a.tasks = append(a.tasks, &Task{ID: id, Status: status, Message: message, Updated: at})
	a.list.SetLen(a.rows())
}

// Tasks are the known tasks.
func (a *Activity) Tasks() []*Task { return a.tasks }

func (a *Activity) rows() int { return len(a.ops) + len(a.tasks) }

func (a *Activity) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		a.list.Update(msg) // the wheel
		return nil
	}
	e := a.keys.Explore
	cur := a.list.Cursor()
	switch {
	case key.Matches(km, e.Open):
		return a.open()
	case key.Matches(km, e.CancelOp):
		if cur < len(a.ops) {
			if o := a.ops[cur]; o.Status == OpRunning {
				id := o.ID
				return func() tea.Msg { return CancelOpMsg{ID: id} }
			}
		} else if i := cur - len(a.ops); i < len(a.tasks) {
			id := a.tasks[i].ID
			return func() tea.Msg { return TaskCancelMsg{TaskID: id} }
		}
	case key.Matches(km, e.TaskRes):
		if i := cur - len(a.ops); i >= 0 && i < len(a.tasks) {
			id := a.tasks[i].ID
			return func() tea.Msg { return TaskResultMsg{TaskID: id} }
		}
	default:
		a.list.Update(km)
	}
	return nil
}

// open shows the selected item in full: a request's answer frame, or
// (running, failed locally, a task) what is known of it.
func (a *Activity) open() tea.Cmd {
	if a.rows() == 0 {
		return nil
	}
	i := a.list.Cursor()
	var title string
	var lines []string
	field := func(k, v string) {
		if v != "" {
			lines = append(lines, a.theme.Detail.Label.Render(fmt.Sprintf("%-10s", k))+a.theme.Detail.Value.Render(termsafe.String(v)))
		}
	}
	if i < len(a.ops) {
		o := a.ops[i]
		if o.Frame != nil {
			f := o.Frame
			return func() tea.Msg { return OpenFrameMsg{Frame: f} }
		}
		title = o.Label
		field("request", o.Label)
		field("status", o.Status)
		field("started", o.Started.Format("15:04:05.000"))
		if !o.Ended.IsZero() {
			field("ended", o.Ended.Format("15:04:05.000"))
			field("took", o.took(a.now))
		}
		field("token", o.Token)
		if o.Notes > 0 {
			p := fmt.Sprintf("%g", o.Progress)
			if o.Total > 0 {
				p += fmt.Sprintf(" of %g", o.Total)
			}
			field("progress", p+" ("+plural.S(o.Notes, "notification")+")")
			field("message", o.Message)
		}
		if o.Status == OpRunning {
			lines = append(lines, "", a.theme.Detail.Hint.Render("no answer yet; x cancels the request"))
		} else {
			lines = append(lines, "", a.theme.Detail.Hint.Render("no answer frame: the request ended without one"))
		}
	} else {
		tk := a.tasks[i-len(a.ops)]
		title = "task " + tk.ID
		field("task", tk.ID)
		field("status", tk.Status)
		field("message", tk.Message)
		field("updated", tk.Updated.Format("15:04:05.000"))
		lines = append(lines, "", a.theme.Detail.Hint.Render("o fetches its result (tasks/result); x cancels it"))
	}
	return func() tea.Msg { return OpenLinesMsg{Title: termsafe.String(title), Lines: lines} }
}

func (a *Activity) ShortHelp() []key.Binding {
	e := a.keys.Explore
	res := e.TaskRes
	res.SetEnabled(a.list.Cursor() >= len(a.ops) && len(a.tasks) > 0)
	open := e.Open
	open.SetHelp("enter", "open")
	sc := a.keys.Scroll
	cancel := e.CancelOp
	i := a.list.Cursor()
	cancel.SetEnabled(i < len(a.ops) && a.ops[i].Status == OpRunning || i >= len(a.ops) && len(a.tasks) > 0)
	// With nothing listed there is nothing to move over, open or wrap.
	return enabledIf(len(a.ops)+len(a.tasks) > 0, e.Up, e.Down, open, cancel, res, sc.PageDown, sc.Left, sc.Wrap)
}

func (a *Activity) FullHelp() [][]key.Binding {
	e := a.keys.Explore
	res := e.TaskRes
	res.SetEnabled(a.list.Cursor() >= len(a.ops) && len(a.tasks) > 0)
	open := e.Open
	open.SetHelp("enter", "open")
	return [][]key.Binding{a.list.FullHelp(), {open, e.CancelOp, res}}
}

// OpLine is a one-line summary of a request with its bar, used by the
// status bar.
func (a *Activity) OpLine(o *Op, w int) string {
	head, bar := a.opParts(o, w)
	if bar == "" {
		return head
	}
	return head + " " + bar
}

// opParts renders a request's head (status, label, elapsed) and, when it
// received progress, its bar with count and message.
func (a *Activity) opParts(o *Op, w int) (string, string) {
	t := a.theme
	st := t.Status.Info
	switch o.Status {
	case OpOK:
		st = t.Status.OK
	case OpError:
		st = t.Status.Error
	case OpCancelled, OpTimeout, OpLost:
		st = t.Log.LocalError
	}
	head := st.Render(fmt.Sprintf("%-9s", o.Status)) + " " + t.Tools.Name.Render(termsafe.String(o.Label)) + " " + t.Log.Latency.Render(o.took(a.now))
	if o.Notes == 0 {
		return head, ""
	}
	count := fmt.Sprintf(" %g", o.Progress)
	if o.Total > 0 {
		count += fmt.Sprintf("/%g", o.Total)
	}
	pct := 0.0
	if o.Total > 0 {
		pct = min(o.Progress/o.Total, 1)
	}
	bar := a.bar
	bar.SetWidth(max(min(w/3, 30), 6))
	line := bar.ViewAs(pct) + count
	if o.Message != "" {
		line += " " + t.Detail.Hint.Render(termsafe.String(o.Message))
	}
	return head, line
}

// line is item i as one row: a request with its bar, or a task.
func (a *Activity) line(i int) string {
	t := a.theme
	if i < len(a.ops) {
		return a.OpLine(a.ops[i], a.w-4)
	}
	tk := a.tasks[i-len(a.ops)]
	s := t.Tools.Badge.Render("task ") + t.Tools.Name.Render(termsafe.String(tk.ID)) + " " + t.Status.Info.Render(termsafe.String(tk.Status))
	if tk.Message != "" {
		s += " " + t.Detail.Hint.Render(termsafe.String(tk.Message))
	}
	return s
}

func (a *Activity) View() string {
	t := a.theme
	inner := a.w - 2
	if a.rows() == 0 {
		return Box(t, a.Title(), a.focused, a.w, a.h, []string{t.Log.Empty.Render("  no requests yet: what you send from the panes shows here, with progress")})
	}
	a.list.SetLen(a.rows())
	cur, prev := a.list.Cursor(), -1
	var lines []string
	for _, r := range a.list.RenderRows() {
		row := selRow(t, r.Text, inner, a.focused && r.Item == cur)
		if r.Item == prev && a.focused && r.Item == cur {
			row = t.Tools.Selected.Render(Fit("  "+r.Text, inner)) // a wrapped item's next rows
		}
		prev = r.Item
		lines = append(lines, row)
	}
	tail := ""
	if p := a.list.Position(); p != "" {
		tail = " · " + p
	}
	return Box(t, TitleKeeping(a.Title(), tail, a.w), a.focused, a.w, a.h, lines)
}
