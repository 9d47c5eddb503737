package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Tokens is what the tool list costs a model (check always counts it) and
// the budgets check was given.
type Tokens struct {
	Encoding string `json:"encoding"`
	Note     string `json:"note"`
	// List is the whole list's cost; Tools each tool's, the costliest
	// first.
	List  int               `json:"list"`
	Tools []tokens.ToolCost `json:"tools"`
	// MaxToolTokens and MaxResultTokens are --max-tool-tokens and
	// --max-result-tokens (0: no budget).
	MaxToolTokens   int `json:"maxToolTokens,omitempty"`
	MaxResultTokens int `json:"maxResultTokens,omitempty"`
	// AppOnly names the tools for MCP Apps views alone (visibility
	// without "model"): a host does not give them to the model, so they
	// are not counted.
	AppOnly []string `json:"appOnly,omitempty"`
}

// The budget rules: findings of check's own, not of the doctor (which
// watches traffic and knows no budget), reported like the doctor's.
const (
	RuleToolTokens   = "budget/tool-list-tokens"
	RuleResultTokens = "budget/tool-result-tokens"
)

// BudgetRules describes the budget rules for SARIF and JUnit.
func BudgetRules() []doctor.RuleInfo {
	return []doctor.RuleInfo{
		{ID: RuleToolTokens, Severity: mcp.SeverityError,
			Summary: "the tool list costs a model more tokens than --max-tool-tokens allows",
			Why:     "Every tool definition is sent to the model on every turn, before the user says anything: a costly list crowds out the conversation and is paid for on each request.",
			Fix:     "Shorten the costliest tools' descriptions and schemas (enums and examples weigh most), merge near-duplicate tools, or split the server by role.",
			SpecRef: "not a protocol rule: the budget given to check (" + tokens.Encoding + " tokens, " + "an estimate for models whose tokenizer is not public)"},
		{ID: RuleResultTokens, Severity: mcp.SeverityError,
			Summary: "a tool result costs a model more tokens than --max-result-tokens allows",
			Why:     "A result goes into the model's context whole; clients cut large ones (Claude Code 2.1.328 warns above 10,000 tokens, and above 25,000 by default saves the output to a file and gives the model only its path).",
			Fix:     "Paginate, filter or summarise the result; return a resource link for bulky data.",
			SpecRef: "not a protocol rule: the budget given to check (" + tokens.Encoding + " tokens)"},
	}
}

// ForModel splits a tool list into what a model is given and the names of
// the tools for MCP Apps views alone, which a host keeps from it.
func ForModel(tools []json.RawMessage) (model []json.RawMessage, appOnly []string) {
	for _, t := range tools {
		if !apps.HiddenFromModel(t) {
			model = append(model, t)
			continue
		}
		name := ""
		if v, ok := jsonview.Member(t, "name"); ok {
			name, _ = jsonview.String(v)
		}
		if cut, whole := doctor.CutName(name); !whole {
			name = cut + "…"
		}
		appOnly = append(appOnly, name)
	}
	return model, appOnly
}

// NewTokens counts a tool list for a report.
// A long name is kept cut, with its length (doctor.CutName).
func NewTokens(cost tokens.ListCost, maxTool, maxResult int) *Tokens {
	tools := cost.Costliest(len(cost.Tools))
	for i := range tools {
		if cut, whole := doctor.CutName(tools[i].Name); !whole {
			tools[i].Name, tools[i].NameBytes = strings.Clone(cut), len(tools[i].Name)
		}
	}
	return &Tokens{
		Encoding: tokens.Encoding, Note: tokens.Estimate,
		List: cost.Total, Tools: tools,
		MaxToolTokens: maxTool, MaxResultTokens: maxResult,
	}
}

// costliestNames names the n costliest tools with their costs.
func costliestNames(ts []tokens.ToolCost, n int) string {
	var parts []string
	for i, t := range ts {
		if i == n {
			break
		}
		name := t.Name
		if t.NameBytes > 0 {
			name += fmt.Sprintf("… (%d bytes)", t.NameBytes)
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", name, t.Tokens))
	}
	return strings.Join(parts, ", ")
}

// BudgetFindings are the budget rules' findings on rep: the list over
// MaxToolTokens, each tool result over MaxResultTokens.
func BudgetFindings(rep *Report) []Diagnostic {
	tk := rep.Tokens
	if tk == nil {
		return nil
	}
	rules := BudgetRules()
	finding := func(r doctor.RuleInfo, msg string) Diagnostic {
		return Diagnostic{Rule: r.ID, Severity: r.Severity.String(), Message: msg, Why: r.Why, Fix: r.Fix, SpecRef: r.SpecRef}
	}
	var out []Diagnostic
	if tk.MaxToolTokens > 0 && tk.List > tk.MaxToolTokens {
		out = append(out, finding(rules[0], fmt.Sprintf("The tool list costs %d tokens in all (%s), over the budget of %d; the costliest tools: %s.",
			tk.List, tk.Encoding, tk.MaxToolTokens, costliestNames(tk.Tools, 3))))
	}
	if tk.MaxResultTokens > 0 {
		for _, tc := range rep.ToolCalls {
			if tc.Tokens != nil && tc.Tokens.Tokens > tk.MaxResultTokens {
				more := ""
				if tc.Tokens.Partial {
					more = " (counting its first 4 MiB)"
				}
				out = append(out, finding(rules[1], fmt.Sprintf("The result of %s costs %d tokens%s, over the budget of %d.", tc.Tool, tc.Tokens.Tokens, more, tk.MaxResultTokens)))
			}
		}
	}
	return out
}
