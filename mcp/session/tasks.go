package session

import (
	"encoding/json"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Poll intervals are the server's pollInterval, kept within bounds so that
// a server asking for 1 ms does not flood the log and one asking for an
// hour does not look stuck.
const (
	defaultTaskPoll = time.Second
	minTaskPoll     = 250 * time.Millisecond
	maxTaskPoll     = 30 * time.Second
)

// decodeTask reads a Task object, or a CreateTaskResult's task; ok is
// false when raw holds no task.
func decodeTask(raw json.RawMessage) (Task, bool) {
	type fields struct {
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
		PollInterval  *int64 `json:"pollInterval"` // milliseconds
	}
	var t struct {
		Task *fields `json:"task"`
		fields
	}
	// Only the task's members are decoded: raw can be a whole tool result.
	small, ok := jsonview.Pick(raw, "task", "taskId", "status", "statusMessage", "pollInterval")
	if !ok {
		small = raw
	}
	if json.Unmarshal(small, &t) != nil {
		return Task{}, false
	}
	if t.Task != nil {
		t.fields = *t.Task
	}
	if t.TaskID == "" {
		return Task{}, false
	}
	out := Task{ID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage}
	if t.PollInterval != nil {
		out.PollInterval = min(max(time.Duration(*t.PollInterval)*time.Millisecond, minTaskPoll), maxTaskPoll)
	}
	return out, true
}

// taskSeen records a task's state: the event that says so, and its next
// tasks/get while it is not finished.
func (s *Session) taskSeen(t Task) []mcp.Event {
	s.mu.Lock()
	s.scheduleLocked(t)
	s.mu.Unlock()
	return []mcp.Event{TaskEvent{Time: time.Now(), Task: t}}
}

// scheduleLocked schedules a task's next tasks/get honouring the server's
// pollInterval (2025-11-25 tasks: "poll tasks/get"), one timer per task,
// none once the task is finished.
func (s *Session) scheduleLocked(t Task) {
	if t.Terminal() || s.ended {
		return
	}
	if _, ok := s.polls[t.ID]; ok {
		return
	}
	every := defaultTaskPoll
	if t.PollInterval > 0 {
		every = t.PollInterval
	}
	id := t.ID
	s.polls[id] = time.AfterFunc(every, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.polls[id]; !ok {
			return // stopped as the session ended
		}
		delete(s.polls, id)
		// An error here means the session ended: nothing to poll.
		_, _ = s.startLocked(s.taskRequest(KindTaskGet, mcp.MethodTasksGet, id))
	})
}
