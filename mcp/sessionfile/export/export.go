// Package export turns a session file into something to hand to someone
// else: a self-contained HTML page (no network access at all: inline CSS,
// no scripts from anywhere, readable in a browser and in print), a
// Markdown bug-report excerpt, or a HAR 1.2 file of the HTTP exchanges for
// browser devtools (`mcpscope export`). Secrets stay redacted whatever the
// file holds: environment values, Authorization and cookie headers, and
// secret-looking URL query parameters.
package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Session is what the exports show, gathered from a session's events
// through the one reading of a session file (mcp/sessionfile/reading):
// requests paired with what really answered them, the probe before the
// handshake shown as a probe, the outcome derived from the frames.
type Session struct {
	Source    string // the file's name
	Header    record.Entry
	Handshake *mcp.Handshake
	// Timeline is every frame, requests paired with their answers, in the
	// order of the first frame of each item.
	Timeline    []*Item
	Outcome     reading.Outcome
	Diagnostics []*mcp.Diagnostic
	HTTP        []mcp.TransportEvent // the HTTP requests, for HAR
	// App is the rows of tool views the preview rendered (kind "app"):
	// bridge messages both ways, CSP violations, console errors.
	App         []mcp.TransportEvent
	Stderr      []string
	States      []mcp.StateEvent
	LocalErrors []*mcp.LocalError
	Start       time.Time
	// Cut, when set, says the file ends mid-line (record.CutError): the
	// export shows it up to its last complete line, and says so.
	Cut string
	// Conversations are the client sessions of a tap's capture that
	// carried several (one tap --listen serving one client after
	// another, or several at once), in the order they began; empty for
	// a session of one conversation. The timeline is theirs one after
	// the other.
	Conversations []Conversation
	frames        map[int64]*mcp.Frame
	frameCount    int
	// heading: the conversation a timeline item begins.
	heading map[*Item]*Conversation
}

// Conversation is one client session of a capture that carried several:
// its client and its own requests' counts.
type Conversation struct {
	N         int    // its number in the capture (Frame.ClientSession)
	Client    string // the client as its handshake named it; "" when none did
	Handshake *mcp.Handshake
	Outcome   reading.Outcome // its counts only: how it ended is the capture's
	Start     time.Time
}

// String says it in one line: "client session 2: opencode 1.2 — 4
// requests, 4 answered".
func (c Conversation) String() string {
	client := c.Client
	if client == "" {
		client = "(no handshake)"
	}
	o := c.Outcome
	line := fmt.Sprintf("client session %d: %s — %s, %d answered", c.N, client, plural.S(o.Requests, "request"), o.Answered)
	if o.Errors > 0 {
		line += fmt.Sprintf(" (%d with an error)", o.Errors)
	}
	if o.NoAnswer > 0 {
		line += fmt.Sprintf(", %d without an answer", o.NoAnswer)
	}
	if o.Pending > 0 {
		line += fmt.Sprintf(", %d still waiting", o.Pending)
	}
	return line
}

// Item is one line of the timeline: a request and its answer, or a lone
// frame (a notification, an invalid line, an unmatched response).
type Item = reading.Exchange

// FromEvents gathers a session's events.
func FromEvents(source string, header record.Entry, events []mcp.Event) *Session {
	events = redactBodies(events)
	rs := reading.FromEvents(source, header, events)
	s := &Session{Source: source, Header: redactHeader(header), frames: map[int64]*mcp.Frame{},
		Timeline: rs.Exchanges(), Outcome: rs.Outcome}
	if c, err := rs.First(); err == nil {
		s.Handshake = c.Handshake
	}
	s.conversations(rs)
	for _, ev := range events {
		if s.Start.IsZero() {
			s.Start = ev.At()
		}
		switch e := ev.(type) {
		case mcp.FrameEvent:
			s.frames[e.Frame.Seq] = e.Frame
			s.frameCount++
		case mcp.DiagnosticEvent:
			s.Diagnostics = append(s.Diagnostics, e.Diagnostic)
		case mcp.TransportEvent:
			if e.Kind == "http" {
				e.Fields = redactFields(e.Fields)
				e.Summary = redact.URLs(e.Summary)
				s.HTTP = append(s.HTTP, e)
			}
			if e.Kind == "app" {
				s.App = append(s.App, e)
			}
		case mcp.StderrEvent:
			if e.Dropped > 0 {
				// The lines of a flood mcpscope counted and did not keep.
				s.Stderr = append(s.Stderr, fmt.Sprintf("… %d earlier lines dropped (%d bytes): a flood faster than mcpscope keeps", e.Dropped, e.DroppedBytes))
			}
			s.Stderr = append(s.Stderr, e.Line)
		case mcp.StateEvent:
			e.Detail = redact.URLs(e.Detail)
			s.States = append(s.States, e)
		case mcp.LocalErrorEvent:
			s.LocalErrors = append(s.LocalErrors, e.Err)
		}
	}
	return s
}

// conversations gathers the client sessions of a capture that numbers
// them, each heading its part of the timeline.
func (s *Session) conversations(rs *reading.Session) {
	numbered := false
	for _, c := range rs.Connections {
		numbered = numbered || c.ClientSession != 0
	}
	if !numbered {
		return
	}
	s.heading = map[*Item]*Conversation{}
	s.Conversations = make([]Conversation, 0, len(rs.Connections))
	for _, c := range rs.Connections {
		if len(c.Exchanges) == 0 {
			continue
		}
		s.Conversations = append(s.Conversations, Conversation{N: c.ClientSession, Client: c.Client(), Handshake: c.Handshake,
			Outcome: c.Counts(), Start: c.Exchanges[0].First().Time})
	}
	i := 0
	for _, c := range rs.Connections {
		if len(c.Exchanges) > 0 {
			s.heading[c.Exchanges[0]] = &s.Conversations[i]
			i++
		}
	}
}

// firstOf says, of a capture of several client sessions, that the
// handshake shown is the first session's: " (client session 1 of 3; each
// is listed)"; "" otherwise.
func (s *Session) firstOf() string {
	if len(s.Conversations) < 2 || s.Handshake == nil {
		return ""
	}
	for _, c := range s.Conversations {
		if c.Handshake == s.Handshake {
			return fmt.Sprintf(" (client session %d of %d; each is listed)", c.N, len(s.Conversations))
		}
	}
	return ""
}

// Heading is the conversation a timeline item begins, nil for any other.
func (s *Session) Heading(it *Item) *Conversation { return s.heading[it] }

// conversation is the client session numbered n (nil when none is).
func (s *Session) conversation(n int) *Conversation {
	for i := range s.Conversations {
		if s.Conversations[i].N == n {
			return &s.Conversations[i]
		}
	}
	return nil
}

// Frame is the frame of a seq (nil when unknown).
func (s *Session) Frame(seq int64) *mcp.Frame { return s.frames[seq] }

// ServerName is the server's name and version as it said in the handshake.
func (s *Session) ServerName() string {
	if s.Handshake == nil || s.Handshake.ServerInfo.Name == "" {
		return "(no handshake)"
	}
	h := s.Handshake.ServerInfo
	return strings.TrimSpace(h.Name + " " + h.Version)
}

func redactFields(in []mcp.Field) []mcp.Field {
	out := make([]mcp.Field, len(in))
	for i, f := range in {
		name := strings.ToLower(strings.TrimPrefix(f.Key, "response "))
		if redact.IsSecretHeader(name) {
			f.Value = record.Redacted // whatever --record-secrets kept
		} else {
			f.Value = redact.Header(name, f.Value)
		}
		out[i] = f
	}
	return out
}

// redactBodies redacts the secrets of what is not a JSON-RPC message (an
// OAuth token request or answer that an older tap recorded as it was);
// JSON-RPC frames are shown as they crossed. events is not changed.
func redactBodies(events []mcp.Event) []mcp.Event {
	var out []mcp.Event
	for i, ev := range events {
		fe, ok := ev.(mcp.FrameEvent)
		if !ok || fe.Frame.Kind != mcp.KindInvalid {
			continue
		}
		raw, names := redact.Body(fe.Frame.Raw)
		if len(names) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(events)
		}
		f := *fe.Frame
		f.Raw = raw
		fe.Frame = &f
		out[i] = fe
	}
	if out == nil {
		return events
	}
	return out
}

// redactHeader redacts the environment even in a file written with
// --record-secrets: an export is for someone else.
func redactHeader(h record.Entry) record.Entry {
	if len(h.Env) > 0 {
		env := make(map[string]string, len(h.Env))
		for k := range h.Env {
			env[k] = record.Redacted
		}
		h.Env = env
	}
	h.Target, h.Command, h.URL = redact.Command(h.Target), redact.Args(h.Command), redact.URLs(h.URL)
	return h
}

// pretty indents JSON for reading, keeping its keys' order and its
// numbers as they were sent, its indentation capped
// (jsonview.MaxIndentDepth) so that deep nesting costs what its bytes do;
// anything else is returned as it is.
func pretty(raw []byte) string {
	if !jsonview.Valid(raw) {
		return string(raw)
	}
	return string(jsonview.Indent(make([]byte, 0, len(raw)*2), raw, "  "))
}

func prettyRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	return pretty(raw)
}

// WithDoctor returns the events with the analyzer's diagnostics inserted
// after the events that revealed them: today's doctor over an old
// recording (whose own diagnostics the caller left out).
func WithDoctor(events []mcp.Event, a mcp.Analyzer) []mcp.Event {
	out := make([]mcp.Event, 0, len(events))
	for _, ev := range events {
		out = append(out, ev)
		for _, d := range a.Observe(ev) {
			out = append(out, mcp.DiagnosticEvent{Time: ev.At(), Diagnostic: d})
		}
	}
	return out
}
