package surfacediff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// Formats are the output formats Write knows.
var Formats = []string{"text", "json", "markdown"}

// Write writes the report as text, json or markdown.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown", "md":
		return writeMarkdown(w, r)
	case "text", "":
		return writeText(w, r)
	}
	return fmt.Errorf("unknown format %q: expected %s", format, strings.Join(Formats, ", "))
}

func describe(s Side) string {
	return fmt.Sprintf("%s (%s %s, protocol %s)", s.Label, s.Server, s.Version, s.ProtocolVersion)
}

func summary(r *Report) string {
	if len(r.Changes) == 0 {
		return "no differences in what a client sees"
	}
	return fmt.Sprintf("%d breaking, %d compatible, %d other change(s)", r.Breaking, r.Compatible, len(r.Changes)-r.Breaking-r.Compatible)
}

// Server strings (names, descriptions, URIs) reach a terminal here, so
// they are neutralised.
func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n%s\n", termsafe.String(describe(r.A)), termsafe.String(describe(r.B)), summary(r))
	if len(r.Changes) > 0 {
		b.WriteString("\n")
	}
	for _, c := range r.Changes {
		label := c.Area
		if c.Name != "" {
			label += " " + c.Name
		}
		fmt.Fprintf(&b, "%-10s %s: %s", strings.ToUpper(string(c.Class)), termsafe.String(label), termsafe.String(c.What))
		if c.Path != "" && !strings.Contains(c.What, c.Path) {
			fmt.Fprintf(&b, "  (%s)", termsafe.String(c.Path))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## MCP surface diff\n\n- **A**: %s\n- **B**: %s\n\n**%s**\n", mdCell(describe(r.A)), mdCell(describe(r.B)), summary(r))
	if len(r.Changes) > 0 {
		b.WriteString("\n| class | what | item | change | where |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range r.Changes {
			where := ""
			if c.Path != "" {
				where = "`" + mdCell(c.Path) + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Class, c.Area, mdCell(c.Name), mdCell(c.What), where)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
