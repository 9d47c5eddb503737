package sessionfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/session"
)

const header = `{"type":"session","time":"2026-01-01T00:00:00Z","format":1,"target":"x"}` + "\n"

// A banner on stdout, and a diagnostic recorded by an older doctor.
const body = `{"type":"frame","time":"2026-01-01T00:00:01Z","seq":1,"dir":"in","transport":"stdio","kind":"invalid","size":9,"raw":"starting!","problem":"not JSON (a log line on stdout?)"}
{"type":"diagnostic","time":"2026-01-01T00:00:01Z","rule":"old/rule-that-no-longer-exists","severity":"error","message":"old"}
`

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func collect(t *testing.T, ch <-chan mcp.Event, n int) []mcp.Event {
	t.Helper()
	var out []mcp.Event
	timeout := time.After(5 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("only %d of %d events arrived", len(out), n)
		}
	}
	return out
}

// The doctor runs again with today's rules; the recorded findings are
// left out. Send keys are refused with the reason given.
func TestDoctorRunsAgain(t *testing.T) {
	s, err := Open(write(t, header+body), Options{Analyzer: doctor.New(doctor.Options{}), Why: "a recording"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if s.TransportName() != "stdio" {
		t.Errorf("transport %q", s.TransportName())
	}
	_ = s.Start(t.Context())
	var rules []string
	frames := 0
	for ev := range s.Events() {
		switch e := ev.(type) {
		case mcp.FrameEvent:
			frames++
		case mcp.DiagnosticEvent:
			rules = append(rules, e.Diagnostic.Rule)
		}
	}
	if frames != 1 || strings.Join(rules, ",") != "framing/non-json-stdout" {
		t.Errorf("frames %d, diagnostics %v; want the frame and today's rule only", frames, rules)
	}
	_, err = s.CallTool("add", nil)
	var ro *session.ReadOnlyError
	if err == nil || !strings.Contains(err.Error(), "a recording") || !asReadOnly(err, &ro) {
		t.Errorf("CallTool: %v", err)
	}
}

func asReadOnly(err error, target **session.ReadOnlyError) bool {
	ro, ok := err.(*session.ReadOnlyError)
	*target = ro
	return ok
}

// Without an analyzer, the recorded diagnostics are shown as they were.
func TestRecordedDiagnosticsWithoutDoctor(t *testing.T) {
	s, err := Open(write(t, header+body), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	_ = s.Start(t.Context())
	evs := collect(t, s.Events(), 3)
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	if d, ok := evs[1].(mcp.DiagnosticEvent); !ok || d.Diagnostic.Rule != "old/rule-that-no-longer-exists" {
		t.Errorf("second event %#v", evs[1])
	}
}

// A file still being written is followed; Close ends the stream.
func TestFollowsAGrowingFile(t *testing.T) {
	path := write(t, header)
	s, err := Open(path, Options{Follow: true, Poll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Start(t.Context())
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.WriteString(`{"type":"stderr","time":"2026-01-01T00:00:01Z","line":"later"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, s.Events(), 1)
	if se, ok := evs[0].(mcp.StderrEvent); !ok || se.Line != "later" {
		t.Fatalf("got %#v", evs[0])
	}
	done := make(chan struct{})
	go func() { _ = s.Close(); close(done) }()
	for range s.Events() {
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

func TestOpenRejectsOtherFiles(t *testing.T) {
	for name, content := range map[string]string{
		"empty":  "",
		"other":  `{"hello":1}` + "\n",
		"newer":  `{"type":"session","time":"2026-01-01T00:00:00Z","format":99}` + "\n",
		"binary": "\x00\x01\x02\n",
	} {
		if _, err := Open(write(t, content), Options{}); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}

// The checked-in format-1 file opens: its frames arrive at their recorded
// times.
func TestOpensTheFormat1Fixture(t *testing.T) {
	s, err := Open("record/testdata/format1-demo-stdio.jsonl", Options{Analyzer: doctor.New(doctor.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	_ = s.Start(t.Context())
	var first time.Time
	frames := 0
	for ev := range s.Events() {
		if fe, ok := ev.(mcp.FrameEvent); ok {
			frames++
			if first.IsZero() {
				first = fe.Frame.Time
			}
		}
	}
	if frames != 17 || first.Year() != 2026 {
		t.Errorf("%d frames, first at %v", frames, first)
	}
}

// A capture whose tools/list answer has no list line after it (`call
// --record` writes none) still fills the tools pane: the list comes from
// the frames, once, where the listing ended.
func TestListsComeFromTheFrames(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/captures/codex-0.169.0-stdio.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if !strings.Contains(line, `"type":"list"`) {
			kept = append(kept, line)
		}
	}
	for name, content := range map[string]string{"with its list line": string(raw), "without": strings.Join(kept, "")} {
		s, err := Open(write(t, content), Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Start(t.Context())
		var lists []mcp.ListEvent
		for ev := range s.Events() {
			if l, ok := ev.(mcp.ListEvent); ok {
				lists = append(lists, l)
			}
		}
		_ = s.Close()
		if len(lists) != 1 || lists[0].Method != mcp.MethodToolsList || len(lists[0].Items) != 15 {
			t.Errorf("%s: %d list events %+v", name, len(lists), lists)
		}
	}
}

// A file cut mid-line (its writer's disk filled up) shows every complete
// line, then a failed state that says it was cut; followed, once the half
// line has stayed record.CutAfter.
func TestCutFileShowsWhatParsesAndSaysSo(t *testing.T) {
	cut := header + body + `{"type":"frame","time":"2026-01-01T00:00:02Z","seq":2,"dir":"in","kind":"notif`
	for _, follow := range []bool{false, true} {
		s, err := Open(write(t, cut), Options{Follow: follow, Poll: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Start(t.Context())
		frames := 0
		var note string
		var noteAt time.Time
		timeout := time.After(10 * time.Second)
	read:
		for {
			select {
			case ev, ok := <-s.Events():
				if !ok {
					break read
				}
				switch e := ev.(type) {
				case mcp.FrameEvent:
					frames++
				case mcp.StateEvent:
					if e.State == mcp.StateFailed {
						note, noteAt = e.Detail, e.Time
						break read
					}
				}
			case <-timeout:
				t.Fatalf("follow=%v: no note after %d frames", follow, frames)
			}
		}
		_ = s.Close()
		if frames != 1 || !strings.Contains(note, "ends mid-line after 3 lines") || !noteAt.Equal(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)) {
			t.Errorf("follow=%v: %d frames, note %q at %v; want the frame, then the cut said at the last entry's time", follow, frames, note, noteAt)
		}
		if s.Err() != nil {
			t.Errorf("follow=%v: Err = %v; a cut file is read, not failed", follow, s.Err())
		}
	}
}
