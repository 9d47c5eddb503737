package panes

import (
	"encoding/json"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// resultCostMsg carries what a result costs a model, counted off the UI
// goroutine (a long text takes a while) for result number gen.
type resultCostMsg struct {
	gen  int
	cost tokens.ResultCost
}

// countCost counts the result being shown; nil when there is none.
func (r *Result) countCost(raw json.RawMessage) tea.Cmd {
	r.cost = nil
	if len(raw) == 0 {
		return nil
	}
	gen := r.gen
	return func() tea.Msg { return resultCostMsg{gen: gen, cost: tokens.Result(raw, tokens.ViewCounted)} }
}

// costTitle is the title's tail: what the model receives from the result,
// and, in Claude's view, whether Claude Code warns about it or saves it to
// a file and gives the model only the file's path.
func (r *Result) costTitle() string {
	if r.cost == nil {
		return ""
	}
	c := *r.cost
	s := fmt.Sprintf(" · %s tok to the model", tokenCount(c.Tokens))
	if c.Partial {
		s = fmt.Sprintf(" · ≈ %s tok to the model (from its first 256 KiB)", tokenCount(c.Estimated))
	}
	if c.Media > 0 {
		s += fmt.Sprintf(" + %d media", c.Media)
	}
	if r.msg != nil && r.msg.Client == clients.Claude {
		n := max(c.Tokens, c.Estimated)
		switch {
		case n > clients.ClaudeResultMax:
			s += fmt.Sprintf(" · over Claude Code's %d: the model gets only a file path", clients.ClaudeResultMax)
		case n > clients.ClaudeResultWarn:
			s += fmt.Sprintf(" · Claude Code warns (over %d)", clients.ClaudeResultWarn)
		}
	}
	return s
}
