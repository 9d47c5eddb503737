// Package report renders what the protocol doctor (mcpscope check) found:
// the Report of one run, and its text, JSON, SARIF 2.1.0 and JUnit XML
// forms. It knows nothing about connecting; the command fills a Report and
// picks a format.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// Report is what one check found; every format renders it.
type Report struct {
	Target          string              `json:"target"`
	Profile         string              `json:"profile"`
	Connected       bool                `json:"connected"`
	Cause           string              `json:"cause,omitempty"`
	Fix             string              `json:"fix,omitempty"`
	Era             string              `json:"era,omitempty"`
	ProtocolVersion string              `json:"protocolVersion,omitempty"`
	Server          *mcp.Implementation `json:"server,omitempty"`
	Lists           []List              `json:"lists,omitempty"`
	ToolCalls       []ToolCall          `json:"toolCalls,omitempty"`
	Views           []ViewRead          `json:"views,omitempty"`
	Tokens          *Tokens             `json:"tokens,omitempty"`
	Apps            *Apps               `json:"apps,omitempty"` // check --apps
	Summary         Counts              `json:"summary"`
	Diagnostics     []Diagnostic        `json:"diagnostics"`
}

// List is how one list method fared (the first pass of discovery).
type List struct {
	Method   string `json:"method"`
	Declared bool   `json:"declared"`
	Probe    bool   `json:"probe"`
	Items    int    `json:"items"`
	Pages    int    `json:"pages"`
	Error    string `json:"error,omitempty"`
	// ErrorCode is the server's JSON-RPC error code when it answered with
	// one (-32601 to a probe is the expected answer).
	ErrorCode int `json:"errorCode,omitempty"`
}

// ViewRead is one read of a view (an MCP Apps or ChatGPT template a tool
// names), which check makes so the apps rules can judge the view.
type ViewRead struct {
	URI   string   `json:"uri"`
	Tools []string `json:"tools"`
	// Bytes is the size of what the read returned for the URI.
	Bytes int    `json:"bytes,omitempty"`
	Error string `json:"error,omitempty"`
}

// ToolCall is one --call-tools call: the minimal arguments sent and how it ended.
type ToolCall struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	IsError   bool            `json:"isError,omitempty"`
	Error     string          `json:"error,omitempty"`
	// Untestable says why the tool was not called: its inputSchema asks
	// for arguments beyond mcpscope's caps (see schema.ErrTooLarge).
	Untestable string `json:"untestable,omitempty"`
	// Tokens is what the result costs a model, when it came.
	Tokens *tokens.ResultCost `json:"tokens,omitempty"`
}

// Counts are the diagnostics per severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Hints    int `json:"hints"`
}

// Diagnostic is one finding of the doctor, with its explanation and the
// frames it is about.
type Diagnostic struct {
	Rule     string       `json:"rule"`
	Severity string       `json:"severity"`
	Message  string       `json:"message"`
	Frames   []FrameLabel `json:"frames,omitempty"`
	Why      string       `json:"why"`
	Fix      string       `json:"fix"`
	SpecRef  string       `json:"specRef"`
}

// FrameLabel names a frame a diagnostic points at: "#7 ← result tools/list".
type FrameLabel struct {
	Seq   int64  `json:"seq"`
	Label string `json:"label"`
}

// Diagnostics collects a session's diagnostics with labels for their frames,
// merging a finding repeated word for word (check lists twice) into one.
func Diagnostics(events []mcp.Event) []Diagnostic {
	labels := map[int64]string{}
	for _, ev := range events {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			f := fe.Frame
			label := f.Dir.Arrow() + " " + f.Label()
			if f.Probe {
				label += " (probe)"
			}
			labels[f.Seq] = label
		}
	}
	out := []Diagnostic{}
	// check lists everything twice (to catch lists that change silently),
	// so the same finding about the same item comes twice: report it once,
	// with the frames of both listings.
	seen := map[string]int{}
	for _, ev := range events {
		de, ok := ev.(mcp.DiagnosticEvent)
		if !ok {
			continue
		}
		d := de.Diagnostic
		key := d.Rule + "\x00" + d.Message
		i, dup := seen[key]
		if !dup {
			i = len(out)
			seen[key] = i
			out = append(out, Diagnostic{Rule: d.Rule, Severity: d.Severity.String(), Message: d.Message, Why: d.Why, Fix: d.Fix, SpecRef: d.SpecRef})
		}
		for _, s := range d.Frames {
			out[i].Frames = append(out[i].Frames, FrameLabel{Seq: s, Label: labels[s]})
		}
	}
	return out
}

// Count counts diagnostics by severity.
func Count(ds []Diagnostic) Counts {
	var c Counts
	for _, d := range ds {
		switch d.Severity {
		case "error":
			c.Errors++
		case "warning":
			c.Warnings++
		default:
			c.Hints++
		}
	}
	return c
}

// Formats are the values --format accepts.
const Formats = "text, json, sarif or junit"

// ValidFormat reports whether format is one of Formats.
func ValidFormat(format string) bool {
	switch format {
	case "text", "json", "sarif", "junit":
		return true
	}
	return false
}

// Write renders rep in format: text, json, sarif or junit (text for any
// other value; check ValidFormat first).
func Write(w io.Writer, format string, rep *Report) error {
	switch format {
	case "json":
		return WriteJSON(w, rep)
	case "sarif":
		return WriteSARIF(w, rep)
	case "junit":
		return WriteJUnit(w, rep)
	}
	return WriteText(w, rep)
}

// WriteJSON writes rep as indented JSON (the --format json report).
func WriteJSON(w io.Writer, rep *Report) error { return writeJSON(w, rep) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteRules lists every rule: id, severity and summary (check --list-rules).
func WriteRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range doctor.Rules() {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary) // buffered: Flush reports a failed write
	}
	return tw.Flush()
}
