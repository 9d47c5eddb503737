package export

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"
)

// maxMarkdownBody is how much of one frame a bug report quotes.
const maxMarkdownBody = 4000

// Markdown writes a bug-report excerpt: the server and versions, the
// handshake, the exchanges that failed (with their JSON) and the
// diagnostics.
func Markdown(w io.Writer, s *Session) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## MCP session: %s\n\n", mdText(s.ServerName()))
	fmt.Fprintf(&b, "- **Target**: `%s`\n", mdCode(s.Header.Target))
	if h := s.Handshake; h != nil {
		fmt.Fprintf(&b, "- **Protocol**: %s (%s era; client offered %s)\n", mdText(h.ProtocolVersion), h.Era, mdText(h.OfferedVersion))
		fmt.Fprintf(&b, "- **Client**: %s %s%s\n", mdText(h.ClientInfo.Name), mdText(h.ClientInfo.Version), s.firstOf())
	} else {
		b.WriteString("- **Handshake**: did not complete\n")
	}
	fmt.Fprintf(&b, "- **Recorded by**: mcpscope %s, %s\n", mdText(s.Header.Mcpscope), s.Header.Time.UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- **Outcome**: %s\n", mdText(outcome(s)))
	if len(s.Conversations) > 0 {
		fmt.Fprintf(&b, "- **Client sessions**: %d, each its own conversation\n", len(s.Conversations))
		for _, c := range s.Conversations {
			fmt.Fprintf(&b, "  - %s\n", mdText(c.String()))
		}
	}
	fmt.Fprintf(&b, "- **Diagnostics**: %s\n", diagSummary(s.Diagnostics))

	if h := s.Handshake; h != nil {
		b.WriteString("\n### Handshake\n\nServer capabilities:\n\n")
		fence(&b, prettyRaw(h.ServerCapabilities))
	}

	var failed []*Item
	session := map[*Item]*Conversation{} // the client session of each failed item
	var cur *Conversation
	for _, it := range s.Timeline {
		if c := s.Heading(it); c != nil {
			cur = c
		}
		if it.Failed() {
			failed = append(failed, it)
			session[it] = cur
		}
	}
	b.WriteString("\n### Failing exchanges\n\n")
	if len(failed) == 0 {
		b.WriteString("None: every request got a successful answer.\n")
	}
	for _, it := range failed {
		r := s.row(it)
		where := ""
		if c := session[it]; c != nil {
			where = fmt.Sprintf(" (client session %d)", c.N)
		}
		fmt.Fprintf(&b, "**%s %s**%s %s\n\n", r.At, mdText(r.Label), where, mdText(r.Status))
		for _, p := range r.Parts {
			if p.HTML != "" {
				// Markdown rendered for the HTML page: the JSON quoted
				// above holds it as sent.
				continue
			}
			fmt.Fprintf(&b, "%s:\n\n", p.Title)
			// A report shows no picture: each image is a line with its
			// size, and its base64 is not quoted.
			fence(&b, withoutImageData(p.Body, p.Images))
			for _, im := range p.Images {
				im.Size = base64.StdEncoding.DecodedLen(len(im.b64))
				im.Why = "a Markdown report shows no image; the HTML export does"
				fmt.Fprintf(&b, "- %s\n", mdText(im.Note()))
			}
			if len(p.Images) > 0 {
				b.WriteString("\n")
			}
		}
	}

	b.WriteString("\n### Diagnostics\n\n")
	if len(s.Diagnostics) == 0 {
		b.WriteString("The protocol doctor found nothing wrong.\n")
	}
	for _, d := range s.Diagnostics {
		fmt.Fprintf(&b, "- **%s** `%s`: %s", d.Severity, d.Rule, mdText(d.Message))
		if len(d.Frames) > 0 {
			fmt.Fprintf(&b, " (frames %s)", joinInts(d.Frames))
		}
		if d.Fix != "" {
			fmt.Fprintf(&b, "  \n  Fix: %s", mdText(d.Fix))
		}
		b.WriteString("\n")
	}
	if len(s.App) > 0 {
		b.WriteString("\n### Tool views\n\n")
		for _, e := range s.App {
			line := e.Summary
			if e.Err != nil {
				line += ": " + e.Err.Error()
			}
			fmt.Fprintf(&b, "- `+%s` %s\n", e.Time.Sub(s.Start).Round(time.Millisecond), mdText(line))
		}
	}
	if len(s.Stderr) > 0 {
		b.WriteString("\n### Last stderr lines\n\n")
		lines := s.Stderr
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		fence(&b, strings.Join(lines, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fence quotes text in a code fence longer than any backtick run in it.
func fence(b *strings.Builder, text string) {
	if len(text) > maxMarkdownBody {
		text = text[:maxMarkdownBody] + fmt.Sprintf("\n… (%d more bytes)", len(text)-maxMarkdownBody)
	}
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	fmt.Fprintf(b, "%s\n%s\n%s\n\n", ticks, text, ticks)
}

// mdText keeps a server string on one line and from being read as markup.
func mdText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "`", "'", "<", "&lt;", "[", `\[`)
	return r.Replace(s)
}

func mdCode(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "`", "'"), "\n", " ") }
