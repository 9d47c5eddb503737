package host

import (
	"encoding/json"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// Findings are check's findings on a view's timeline: CSP violations,
// console errors, load failures and the host's problems, each said once.
// A blocked eval is left to the log: the SDK's schema library probes eval
// and catches the refusal, so every view built with it would be judged.
func Findings(v *View) []report.Diagnostic {
	var out []report.Diagnostic
	seen := map[string]bool{}
	add := func(rule, msg string) {
		if !seen[rule+msg] {
			seen[rule+msg] = true
			out = append(out, report.PreviewFinding(rule, msg))
		}
	}
	who := fmt.Sprintf("The view of %s (%s)", termsafe.String(v.Tool.Name), termsafe.String(v.Resource.URI))
	blocked := map[string]bool{}
	events := v.Events()
	for _, e := range events {
		if e.Kind == KindCSP {
			var r pageReport
			if json.Unmarshal(e.Raw, &r) == nil {
				blocked[r.BlockedURI] = true
			}
		}
	}
	for _, e := range events {
		var r pageReport
		switch e.Kind {
		case KindCSP:
			if json.Unmarshal(e.Raw, &r) != nil || r.BlockedURI == "eval" || r.BlockedURI == "wasm-eval" {
				continue
			}
			add(report.RuleViewCSP, fmt.Sprintf("%s: its CSP blocked %s (directive %s).", who,
				termsafe.String(r.BlockedURI), termsafe.String(r.Directive)))
		case KindConsole:
			add(report.RuleViewConsole, who+": "+e.Text+".")
		case KindLoad:
			if json.Unmarshal(e.Raw, &r) == nil && blocked[r.URL] {
				continue // the CSP finding says why
			}
			add(report.RuleViewLoad, who+": "+e.Text+".")
		case KindProblem:
			switch e.Rule {
			case RuleNoInitialize, RuleRequestFailed, RuleBridge, RuleHiddenTool:
				add(e.Rule, who+": "+e.Text+".")
			}
		}
	}
	return out
}
