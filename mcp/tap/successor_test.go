package tap

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

func clientNames(evs []mcp.Event) []string {
	var names []string
	for _, ev := range evs {
		if hs, ok := ev.(mcp.HandshakeEvent); ok {
			names = append(names, hs.Handshake.ClientInfo.Name)
		}
	}
	return names
}

// Watching a tap again after it ended (the viewer's reconnect key)
// follows its server's next tap, the one a client starts when it
// restarts the server; with none, the stream says so and does not read
// the ended record a second time. A tap of another server is not taken.
func TestReconnectFollowsTheServersNextTap(t *testing.T) {
	privateDirs(t)
	name, args := demoCmd()
	first := startLiveTap(t, StdioOptions{Name: "alpha", Command: name, Args: args})
	first.say(clientScript[0])
	first.waitLines(t, 1)
	old := listLive(t, 1)[0]
	first.end(t)

	// Nothing newer runs: the stream says the tap ended, and holds no
	// frame of the old record.
	evs := <-collect(t, NewNextSource(old)).done
	var said string
	for _, ev := range evs {
		switch ev := ev.(type) {
		case mcp.FrameEvent:
			t.Fatalf("the ended tap's record was read again: %s", ev.Frame.Raw)
		case mcp.StateEvent:
			said = ev.Detail
		}
	}
	if !strings.Contains(said, "has ended and no newer tap") {
		t.Fatalf("the stream says %q", said)
	}

	// Another server's tap, and then the same server's next one.
	other := startLiveTap(t, StdioOptions{Name: "beta", Command: name, Args: args})
	other.say(strings.Replace(clientScript[0], "claude-ai", "other-client", 1))
	other.waitLines(t, 1)
	time.Sleep(10 * time.Millisecond) // a later start than the old tap's, whatever the clock's grain
	next := startLiveTap(t, StdioOptions{Name: "alpha", Command: name, Args: args})
	next.say(strings.Replace(clientScript[0], "claude-ai", "restarted-client", 1))
	next.waitLines(t, 1)
	listLive(t, 2)

	src := NewNextSource(old)
	done := collect(t, src).done
	time.Sleep(100 * time.Millisecond)
	next.end(t)
	other.end(t)
	select {
	case evs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end with the next tap")
	}
	if got := clientNames(evs); len(got) != 1 || got[0] != "restarted-client" {
		t.Fatalf("the source followed the handshakes of %q, want the restarted client's only", got)
	}
	var following bool
	for _, ev := range evs {
		if st, ok := ev.(mcp.StateEvent); ok && strings.Contains(st.Detail, "following the server's next tap") {
			following = true
		}
	}
	if !following {
		t.Error("the stream does not say it follows another tap")
	}
}
