package join

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// nameWidth bounds a name in the summary table; the details below it
// give names whole.
const nameWidth = 20

// seenWidth and resultWidth bound the table's other cells: with them a
// row is 78 columns.
const (
	seenWidth   = 24
	resultWidth = 23
)

// WriteText prints the report: per server a table of its tools (one row
// each: the name the model saw, what changed, the calls, what the model
// was given), each tool's details with the rules and whether the view
// predicted them, then the requests with the API's count beside ours.
// Every string from a capture is shown with its terminal controls
// neutralised.
func WriteText(w io.Writer, r Report) {
	p := func(format string, a ...any) { _, _ = fmt.Fprintf(w, format, a...) }
	p("Model capture %s joined with %s; names predicted by the %s view (%s).\n",
		termsafe.String(r.Model), plural.S(len(r.Servers), "MCP capture"), r.Client.Name(), termsafe.String(r.From))
	for _, n := range r.Notes {
		p("  note: %s\n", termsafe.String(n))
	}
	for _, s := range r.Servers {
		p("\n%s (capture %s", termsafe.String(s.Name), termsafe.String(s.ID))
		if s.Client != "" {
			p(", client %s", termsafe.String(s.Client))
		}
		p(")\n")
		// Two lines a tool, so that the table fits 80 columns: the changes
		// go under the name the model saw.
		p("  %s  %s  %5s  %s\n", cell("TOOL", nameWidth), cell("AS THE MODEL SAW IT", seenWidth), "CALLS", "RESULT → MODEL")
		for _, t := range s.Tools {
			seen := "-"
			if t.Presented != nil {
				seen = t.Presented.Name
			}
			p("  %s  %s  %5s  %s\n", cell(t.Server.Name, nameWidth), cell(seen, seenWidth),
				fmt.Sprintf("%d/%d", len(t.ModelCalls), len(t.ServerCalls)), ansi.Truncate(termsafe.String(results(t)), resultWidth, "…"))
			p("  %s  %s\n", strings.Repeat(" ", nameWidth), kinds(t.Changes))
		}
		p("  (CALLS: by the model / on the server; below each tool, what the client changed)\n")
		for _, t := range s.Tools {
			writeTool(p, t)
		}
		if s.Outside > 0 {
			p("  %s outside the model capture's time, not joined\n", plural.S(s.Outside, "tools/call request"))
		}
		for _, n := range s.Notes {
			p("  the view (%s): %s\n", n.Rule, termsafe.String(n.Text))
		}
	}
	writeRequests(p, r)
}

// cell is a text cut and padded to w columns.
func cell(s string, w int) string {
	s = ansi.Truncate(termsafe.String(s), w, "…")
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}

// kinds lists the kinds of change, or says there were none.
func kinds(cs []Change) string {
	var ks []string
	for _, c := range cs {
		k := c.Kind
		if c.Predicted == "no" {
			k += "!"
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return "as served"
	}
	return strings.Join(ks, ", ")
}

// results says in a cell what the model was given of the results.
func results(t ToolJoin) string {
	if len(t.Given) == 0 {
		return "-"
	}
	var out []string
	for i, g := range t.Given {
		s := fmt.Sprintf("%s %s", humanBytes(g.Bytes), strings.TrimSuffix(g.How, " to a file"))
		if i < len(t.ServerCalls) {
			s = humanBytes(t.ServerCalls[i].ResultBytes) + " → " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func writeTool(p func(string, ...any), t ToolJoin) {
	p("\n  %s: the server sent a description of %s, a schema of %s\n", termsafe.String(t.Server.Name),
		plural.S(t.Server.DescriptionChars, "character"), plural.S(t.Server.SchemaBytes, "byte"))
	if pr := t.Presented; pr != nil {
		p("    presented as %s: a description of %s, a schema of %s, in %s (%s)\n", termsafe.String(pr.Name),
			plural.S(pr.DescriptionChars, "character"), plural.S(pr.SchemaBytes, "byte"), plural.S(len(pr.Requests), "request"), ns(pr.Requests))
		p("    tokens: ours %d for the definition as sent (the view predicted %d)\n", pr.Tokens, pr.Predicted)
	}
	for _, c := range t.Changes {
		line := c.Kind + ": " + termsafe.String(c.Text)
		if c.Kind == "renamed" {
			line = "renamed " + termsafe.String(c.Text)
		}
		if len(c.Rules) > 0 {
			line += " (" + strings.Join(c.Rules, ", ") + ")"
		}
		switch c.Predicted {
		case "yes":
			line += "; as the view predicts"
		case "no":
			line += "; NOT as the view predicts, which says " + termsafe.String(c.Wrong)
		}
		p("    %s\n", line)
	}
	for _, c := range t.ModelCalls {
		via := ""
		if c.Via != "" {
			via = ", in its " + termsafe.String(c.Via) + " script"
		}
		p("    the model called it in #%d%s%s\n", c.Request, idOf(c.ID), via)
	}
	for _, c := range t.ServerCalls {
		switch {
		case c.NoAnswer:
			p("    the client called it on the server at %s: no answer in the capture\n", c.Time.Local().Format("15:04:05"))
		case c.Error != "":
			p("    the client called it on the server at %s: error %s\n", c.Time.Local().Format("15:04:05"), termsafe.String(c.Error))
		default:
			what := "a result"
			if c.IsError {
				what = "an error result"
			}
			p("    the client called it on the server at %s: %s of %s (%s of text)\n", c.Time.Local().Format("15:04:05"), what,
				plural.S(c.ResultBytes, "byte"), plural.S(c.TextChars, "character"))
		}
	}
	for _, g := range t.Given {
		line := fmt.Sprintf("    the model was given %s of it in #%d%s: %s", plural.S(g.Bytes, "byte"), g.Request, idOf(g.ID), g.How)
		if len(g.Rules) > 0 {
			line += " (" + strings.Join(g.Rules, ", ") + ")"
		}
		p("%s\n", line)
	}
}

func writeRequests(p func(string, ...any), r Report) {
	if len(r.Requests) == 0 {
		return
	}
	p("\nRequests: our count of the tools as sent beside the API's count, which covers the whole request\n(system text, messages and every tool), not one tool\n")
	for _, q := range r.Requests {
		api := "no usage recorded"
		if q.Usage != nil {
			api = fmt.Sprintf("the API: %d input, %d output", q.Input, q.Usage.Output)
		}
		p("  #%-3d %s, %d of the joined servers': ours %d tokens; %s\n", q.N, plural.S(q.Tools, "tool"), q.Joined, q.Tokens, api)
	}
	if d := r.Delta; d != nil {
		p("  #%d has none of the joined servers' tools, #%d has them: the API's input count differs by %+d tokens (the messages added between them included); our count of the definitions #%d added: %d\n",
			d.Without, d.With, d.Input, d.With, d.Ours)
	}
}

func ns(xs []int64) string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("#%d", x))
	}
	return strings.Join(out, " ")
}

func idOf(id string) string {
	if id == "" {
		return ""
	}
	return " (" + termsafe.String(id) + ")"
}

// humanBytes is a size for a table cell: two figures past ten units,
// so that "300 KiB → 1.4 KiB saved" fits the cell.
func humanBytes(n int) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	unit, f := "KiB", float64(n)/(1<<10)
	if n >= 1<<20 {
		unit, f = "MiB", float64(n)/(1<<20)
	}
	if f >= 10 {
		return fmt.Sprintf("%.0f %s", f, unit)
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}
