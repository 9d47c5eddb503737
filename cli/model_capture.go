package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// maxShown bounds a schema, an argument list or a result shown in the
// listing of a model capture: the capture has them whole.
const maxShown = 160

// printModelCapture lists a model tap's capture: per request, the tools
// the client gave the model (name, description length, schema), the
// calls the model made, the results passed back and the API's token
// counts. Everything the client or the API wrote is shown with its
// terminal controls neutralised.
func printModelCapture(out io.Writer, l tap.Listed) error {
	head, reqs, err := tap.ReadModel(l.File)
	var cut *record.CutError
	if err != nil && !errors.As(err, &cut) {
		return withCode(exitUsage, err)
	}
	state := "ended"
	if l.Live {
		state = "live"
	}
	_, _ = fmt.Fprintf(out, "%s: %s → %s (%s, %s)\n", l.ID, termsafe.String(head.Target), termsafe.String(head.URL), state, plural.S(len(reqs), "request"))
	if cut != nil {
		_, _ = fmt.Fprintf(out, "  capture incomplete: %s\n", cut.Error())
	}
	if l.Cut != "" {
		_, _ = fmt.Fprintf(out, "  capture incomplete: %s\n", termsafe.String(l.Cut))
	}
	var lastTools []modelapi.Tool
	lastN := int64(0)
	for _, r := range reqs {
		printModelRequest(out, r, lastTools, lastN)
		if len(r.Tools) > 0 {
			lastTools, lastN = r.Tools, r.N
		}
	}
	// The join is where the tools are compared with the server's: say
	// so when MCP captures of the same run are here to join.
	if mcps, err := overlapping(l, reqs); err == nil {
		_, _ = fmt.Fprintf(out, "\n%s of the same time: mcpscope taps --join %s shows, tool by tool, what the client made of the server's tools\n",
			plural.S(len(mcps), "MCP tap capture"), l.ID)
	}
	return nil
}

func printModelRequest(out io.Writer, r tap.ModelEntry, lastTools []modelapi.Tool, lastN int64) {
	status := fmt.Sprint(r.Status)
	switch {
	case r.Refused != "":
		status = "refused by the tap"
	case r.Error != "":
		status = "no answer (the tap: " + termsafe.String(r.Error) + ")"
	}
	line := fmt.Sprintf("#%d %s %s %s → %s", r.N, r.Time.Local().Format("15:04:05"), r.Method, termsafe.String(r.Path), status)
	if r.API != "" {
		line += "  " + string(r.API)
	}
	if r.Model != "" {
		line += "  " + termsafe.String(r.Model)
	}
	if r.Stream {
		line += "  stream"
	}
	line += fmt.Sprintf("  %.0f ms", r.DurationMs)
	_, _ = fmt.Fprintln(out, line)
	if r.Refused != "" {
		_, _ = fmt.Fprintf(out, "    %s\n", termsafe.String(r.Refused))
	}
	if u := r.Usage; u != nil {
		t := fmt.Sprintf("    tokens (the API's count): %d in, %d out", u.Input, u.Output)
		if u.CacheRead > 0 || u.CacheCreation > 0 {
			t += fmt.Sprintf(", cache read %d, cache written %d", u.CacheRead, u.CacheCreation)
		}
		if u.Reasoning > 0 {
			t += fmt.Sprintf(", reasoning %d", u.Reasoning)
		}
		_, _ = fmt.Fprintln(out, t)
	}
	switch {
	case len(r.Tools) == 0:
	case sameTools(r.Tools, lastTools):
		_, _ = fmt.Fprintf(out, "    tools: the %s of #%d\n", plural.S(len(r.Tools), "tool"), lastN)
	default:
		_, _ = fmt.Fprintf(out, "    tools (%d):\n", len(r.Tools))
		for _, t := range r.Tools {
			name := termsafe.String(t.Name)
			if t.Type != "" {
				name += " [" + termsafe.String(t.Type) + "]"
			}
			if t.Deferred {
				name += " (deferred)"
			}
			if t.Namespace != "" {
				name += " (namespace " + termsafe.String(t.Namespace) + ")"
			}
			_, _ = fmt.Fprintf(out, "      %s  description %s  schema %s\n", name,
				plural.S(utf8.RuneCountInString(t.Description), "character"), shownJSON(t.Schema))
		}
	}
	for _, c := range r.Calls {
		id := ""
		if c.ID != "" {
			id = " (" + termsafe.String(c.ID) + ")"
		}
		if c.Via != "" {
			_, _ = fmt.Fprintf(out, "    the model's %s script%s calls %s\n", termsafe.String(c.Via), id, termsafe.String(c.Name))
			continue
		}
		_, _ = fmt.Fprintf(out, "    the model called %s%s %s\n", termsafe.String(c.Name), id, shownJSON(c.Arguments))
	}
	for _, res := range r.Results {
		who := termsafe.String(res.ID)
		if res.Name != "" {
			who = strings.TrimSpace(termsafe.String(res.Name) + " " + who)
		}
		what := "result"
		if res.IsError {
			what = "error result"
		}
		_, _ = fmt.Fprintf(out, "    %s for %s: %s %s\n", what, who, plural.S(res.Size, "byte"), shownJSON(res.Content))
	}
	for _, p := range r.Problems {
		_, _ = fmt.Fprintf(out, "    not read: %s\n", termsafe.String(p))
	}
}

// sameTools says whether two requests gave the model the same tools.
func sameTools(a, b []modelapi.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.Type != y.Type || x.Description != y.Description || x.Deferred != y.Deferred || !bytes.Equal(x.Schema, y.Schema) {
			return false
		}
	}
	return true
}

// shownJSON is raw JSON on one line, cut to maxShown characters.
func shownJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "-"
	}
	var b bytes.Buffer
	s := string(raw)
	if json.Compact(&b, raw) == nil {
		s = b.String()
	}
	if utf8.RuneCountInString(s) > maxShown {
		s = string([]rune(s)[:maxShown]) + "…"
	}
	return termsafe.String(s)
}
