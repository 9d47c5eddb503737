package record

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// A tap capture written before exits carried lastStderr still has the
// stderr lines: the rebuilt exit names them instead of saying the server
// wrote nothing to stderr.
func TestRebuiltExitFindsTheStderrLinesAnOldCaptureLeftOut(t *testing.T) {
	file := `{"type":"session","time":"2026-12-01T20:13:31Z","format":1,"target":"everything"}
{"type":"stderr","time":"2026-12-01T20:13:32Z","line":"Starting default (STDIO) server..."}
{"type":"exit","time":"2026-12-01T20:13:33Z","code":-1,"signal":"SIGTERM"}
{"type":"exit","time":"2026-12-01T20:13:34Z","code":0}
`
	d := NewDecoder(strings.NewReader(file))
	b := NewRebuilder()
	var exits []*mcp.ExitError
	for {
		e, err := d.Next()
		if err != nil {
			break
		}
		if ev, ok := b.Event(&e).(mcp.ExitEvent); ok {
			exits = append(exits, ev.Exit)
		}
	}
	if len(exits) != 2 {
		t.Fatalf("rebuilt %d exits", len(exits))
	}
	if got := exits[0].LastStderr; len(got) != 1 || got[0] != "Starting default (STDIO) server..." {
		t.Errorf("first exit's stderr %q", got)
	}
	if strings.Contains(exits[0].Error(), "nothing to stderr") {
		t.Errorf("exit reads %q", exits[0].Error())
	}
	// The second process wrote nothing: its exit says so.
	if got := exits[1].LastStderr; len(got) != 0 {
		t.Errorf("the second exit took the first's stderr: %q", got)
	}
}

// How the server was stopped survives the record: a SIGKILL sent in
// mcpscope's own hurry, after it asked the server to stop, reads back as
// such (the doctor, run again on a recording, reports stdio/forced-exit
// only for a SIGKILL that was not hurried).
func TestExitKeepsHowTheServerWasStopped(t *testing.T) {
	in := &mcp.ExitError{Code: -1, Signal: "SIGKILL", Forced: "SIGKILL", Hurried: true, Expected: true, LastStderr: []string{"bye"}}
	e := FromEvent(mcp.ExitEvent{Time: time.Now(), Exit: in})
	got, ok := NewRebuilder().Event(e).(mcp.ExitEvent)
	if !ok {
		t.Fatalf("read back as %T", got)
	}
	if x := got.Exit; !x.Hurried || !x.Expected || x.Forced != "SIGKILL" || x.Signal != "SIGKILL" {
		t.Errorf("read back %+v, wrote %+v", x, in)
	}
}
