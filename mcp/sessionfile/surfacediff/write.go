package surfacediff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
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
	d := fmt.Sprintf("%s (%s %s, protocol %s", s.Label, s.Server, s.Version, s.ProtocolVersion)
	if s.Client != "" {
		d += ", seen by " + strings.TrimSpace(s.Client+" "+s.ClientVersion)
	}
	return d + ")"
}

// clientLines say what each client declared that the other did not.
func clientLines(r *Report) []string {
	if len(r.Clients) == 0 {
		return nil
	}
	var a, b []string
	for _, d := range r.Clients {
		if d.A {
			a = append(a, d.Capability)
		} else {
			b = append(b, d.Capability)
		}
	}
	none := func(l []string) string {
		if len(l) == 0 {
			return "nothing more"
		}
		return strings.Join(l, ", ")
	}
	return []string{
		"the two clients declared different capabilities, and a server may offer each what it declared:",
		"  only A's client: " + none(a),
		"  only B's client: " + none(b),
	}
}

// notListedLines name the lists that were not compared.
func notListedLines(r *Report) []string {
	var out []string
	for _, n := range r.NotListed {
		other := "B"
		if n.ListedBy == "B" {
			other = "A"
		}
		out = append(out, fmt.Sprintf("not compared: %s was listed only by %s (%s); %s's client never listed it", n.Method, n.ListedBy, plural.S(n.Count, "item"), other))
	}
	return out
}

func summary(r *Report) string {
	if len(r.Changes) == 0 {
		return "no differences in what a client sees"
	}
	return fmt.Sprintf("%d breaking, %d compatible, %s", r.Breaking, r.Compatible, plural.Of(len(r.Changes)-r.Breaking-r.Compatible, "other change", "other changes"))
}

// Server strings (names, descriptions, URIs) reach a terminal here, so
// they are neutralised.
func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n", termsafe.String(describe(r.A)), termsafe.String(describe(r.B)))
	for _, l := range append(clientLines(r), notListedLines(r)...) {
		b.WriteString(termsafe.String(l) + "\n")
	}
	b.WriteString(summary(r) + "\n")
	if len(r.Changes) > 0 {
		b.WriteString("\n")
	}
	for _, c := range r.Changes {
		label := c.Area
		if c.Name != "" {
			label += " " + c.Name
		}
		class := strings.ToUpper(string(c.Class))
		if c.FollowsClient != "" {
			class = "CLIENT"
		}
		fmt.Fprintf(&b, "%-10s %s: %s", class, termsafe.String(label), termsafe.String(c.What))
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
	fmt.Fprintf(&b, "## MCP surface diff\n\n- **A**: %s\n- **B**: %s\n", mdCell(describe(r.A)), mdCell(describe(r.B)))
	for _, l := range append(clientLines(r), notListedLines(r)...) {
		fmt.Fprintf(&b, "- %s\n", mdCell(strings.TrimSpace(l)))
	}
	fmt.Fprintf(&b, "\n**%s**\n", summary(r))
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
