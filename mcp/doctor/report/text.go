package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// resultTokens says what a result costs: "1234 tokens", with its media
// and whether the count is partial.
func resultTokens(c tokens.ResultCost) string {
	s := plural.S(c.Tokens, "token")
	if c.Partial {
		s = fmt.Sprintf("≈ %d tokens (%d in its first 4 MiB)", c.Estimated, c.Tokens)
	}
	if c.Media > 0 {
		s += fmt.Sprintf(" + %d image/audio", c.Media)
	}
	return s
}

var severityRank = map[string]int{"error": 0, "warning": 1, "hint": 2}

// ruleGroup is the diagnostics of one rule, for the text report.
type ruleGroup struct {
	rule  string
	sev   string
	items []Diagnostic
}

func groupByRule(ds []Diagnostic) []ruleGroup {
	idx := map[string]int{}
	var groups []ruleGroup
	for _, d := range ds {
		i, ok := idx[d.Rule]
		if !ok {
			i = len(groups)
			idx[d.Rule] = i
			groups = append(groups, ruleGroup{rule: d.Rule, sev: d.Severity})
		}
		groups[i].items = append(groups[i].items, d)
	}
	sort.SliceStable(groups, func(a, b int) bool {
		if severityRank[groups[a].sev] != severityRank[groups[b].sev] {
			return severityRank[groups[a].sev] < severityRank[groups[b].sev]
		}
		return groups[a].rule < groups[b].rule
	})
	return groups
}

// WriteText writes the human report: the lists, the tool calls, then the
// diagnostics grouped by rule (errors first) with why, fix and spec once
// per rule. Server strings are neutralised for the terminal.
func WriteText(w io.Writer, rep *Report) error {
	var b strings.Builder
	safe := termsafe.String
	fmt.Fprintf(&b, "mcpscope check: %s (profile %s)\n", safe(rep.Target), rep.Profile)
	if rep.Server != nil {
		fmt.Fprintf(&b, "server: %s %s, protocol %s (%s era)\n", safe(rep.Server.Name), safe(rep.Server.Version), safe(rep.ProtocolVersion), rep.Era)
	}
	for _, l := range rep.Lists {
		state := plural.S(l.Items, "item") + " in " + plural.S(l.Pages, "page")
		switch {
		case l.Probe && l.ErrorCode == mcp.CodeMethodNotFound:
			// What a server that does not offer the list should answer.
			state = "not served (-32601), as expected"
		case l.Error != "":
			state = "error: " + l.Error
		}
		tag := "declared"
		if l.Probe {
			tag = "probe, not declared"
		}
		fmt.Fprintf(&b, "  %-26s %-20s %s\n", l.Method, "("+tag+")", safe(state))
	}
	for _, v := range rep.Views {
		state := fmt.Sprintf("%d bytes", v.Bytes)
		if v.Error != "" {
			state = "error: " + v.Error
		}
		fmt.Fprintf(&b, "  view %s (%s) → %s\n", safe(v.URI), safe(strings.Join(v.Tools, ", ")), safe(state))
	}
	for _, tc := range rep.ToolCalls {
		state := "ok"
		switch {
		case tc.Untestable != "":
			fmt.Fprintf(&b, "  call %s → not called, untestable: %s\n", safe(tc.Tool), safe(tc.Untestable))
			continue
		case tc.Error != "":
			state = "error: " + tc.Error
		case tc.IsError:
			state = "isError: true"
		}
		if tc.Tokens != nil {
			state += " · " + resultTokens(*tc.Tokens)
		}
		fmt.Fprintf(&b, "  call %s %s → %s\n", safe(tc.Tool), safe(string(tc.Arguments)), safe(state))
	}
	if ap := rep.Apps; ap != nil {
		if ap.Skipped != "" {
			fmt.Fprintf(&b, "  views: not rendered: %s\n", safe(ap.Skipped))
		}
		for _, v := range ap.Views {
			state := "initialised, got its result"
			switch {
			case v.Error != "":
				state = "not rendered: " + v.Error
			case !v.Delivered:
				state = "never got its result"
			}
			fmt.Fprintf(&b, "  view %s %s (%s) → %s · %s", safe(v.Tool), safe(v.Template), v.Dialect, safe(state), plural.S(v.Messages, "bridge message"))
			if v.Screenshot != "" {
				fmt.Fprintf(&b, " · %s", safe(v.Screenshot))
			}
			b.WriteString("\n")
		}
	}
	if tk := rep.Tokens; tk != nil {
		fmt.Fprintf(&b, "  tools cost %d tokens in all (%s)", tk.List, tk.Note)
		if len(tk.Tools) > 0 {
			fmt.Fprintf(&b, "; costliest: %s", safe(costliestNames(tk.Tools, 3)))
		}
		if tk.MaxToolTokens > 0 {
			fmt.Fprintf(&b, "; budget %d", tk.MaxToolTokens)
		}
		if len(tk.AppOnly) > 0 {
			fmt.Fprintf(&b, "; not counted, for app views alone (visibility without \"model\"): %s", safe(strings.Join(tk.AppOnly, ", ")))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, g := range groupByRule(rep.Diagnostics) {
		fmt.Fprintf(&b, "%-7s %s (%d)\n", g.sev, g.rule, len(g.items))
		for _, d := range g.items {
			fmt.Fprintf(&b, "  • %s\n", safe(d.Message))
			if len(d.Frames) > 0 {
				var fs []string
				for _, fl := range d.Frames {
					fs = append(fs, fmt.Sprintf("#%d %s", fl.Seq, safe(fl.Label)))
				}
				fmt.Fprintf(&b, "    frames: %s\n", strings.Join(fs, ", "))
			}
		}
		d := g.items[0]
		fmt.Fprintf(&b, "  why:  %s\n  fix:  %s\n  spec: %s\n\n", safe(d.Why), safe(d.Fix), safe(d.SpecRef))
	}
	s := rep.Summary
	if s.Errors+s.Warnings+s.Hints == 0 {
		b.WriteString("No problems found.\n")
	} else {
		fmt.Fprintf(&b, "%s, %s, %s\n", plural.S(s.Errors, "error"), plural.S(s.Warnings, "warning"), plural.S(s.Hints, "hint"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
