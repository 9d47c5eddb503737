package tap

import (
	"os"
	"strings"
	"testing"
)

// Two taps of one server started in the same second by one process (or by
// a process number used again) record apart: the second capture does not
// replace the first.
func TestTapsStartedTogetherRecordApart(t *testing.T) {
	privateDirs(t)
	name, args := demoCmd()
	a := startLiveTap(t, StdioOptions{Name: "same", Command: name, Args: args})
	a.say(strings.Replace(clientScript[0], "claude-ai", "first-client", 1))
	a.waitLines(t, 1)
	b := startLiveTap(t, StdioOptions{Name: "same", Command: name, Args: args})
	b.say(strings.Replace(clientScript[0], "claude-ai", "second-client", 1))
	b.waitLines(t, 1)
	live := listLive(t, 2)
	a.end(t)
	b.end(t)
	if live[0].File == live[1].File || live[0].ID == live[1].ID {
		t.Fatalf("the two taps share a capture: %+v", live)
	}
	for _, l := range live {
		data, err := os.ReadFile(l.File)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "first-client") == strings.Contains(string(data), "second-client") {
			t.Errorf("%s holds both conversations or neither:\n%s", l.File, data)
		}
	}
}
