package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

// The doctor judging a tapped conversation finds what `mcpscope check`
// finds in the same exchange: check is the real client here, talking to a
// misbehaving server through `mcpscope tap`; the tap's viewer then runs the
// doctor over the session file the tap wrote.
func TestDoctorOnATapFindsWhatCheckFinds(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home")) // where taps record
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	rt := filepath.Join(base, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)

	for _, behaviours := range []string{"noise", "paginate,progress", "repeat-cursor"} {
		t.Run(behaviours, func(t *testing.T) {
			out, _, code := runCLI(t, "check", "--format", "json", "--relist-delay", "0s", "-e", asCLIVar+"=1", "--",
				os.Args[0], "tap", "--name", behaviours, "--", "env", mcptest.EnvVar+"="+behaviours, os.Args[0])
			if code != exitOK && code != exitServerError {
				t.Fatalf("check exit %d: %s", code, out)
			}
			var rep struct {
				Connected   bool `json:"connected"`
				Diagnostics []struct {
					Rule    string `json:"rule"`
					Message string `json:"message"`
				} `json:"diagnostics"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Connected {
				t.Fatalf("check report %v: %s", err, out)
			}
			var want []string
			for _, d := range rep.Diagnostics {
				if processRule(d.Rule) {
					continue
				}
				want = append(want, d.Rule+": "+d.Message)
			}

			var capture tap.Listed
			deadline := time.Now().Add(10 * time.Second)
			for capture.File == "" && time.Now().Before(deadline) {
				taps, _ := tap.List()
				for _, l := range taps {
					if l.Name == behaviours && !l.Live {
						capture = l
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
			if capture.File == "" {
				t.Fatal("the tap's capture is not listed")
			}
			src := tap.NewSource(capture)
			ch := src.Events()
			if err := src.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			var evs []mcp.Event
			for ev := range ch {
				evs = append(evs, ev)
			}
			// The same report check writes, from the tap's events.
			var got []string
			for _, d := range report.Diagnostics(evs) {
				if processRule(d.Rule) {
					continue
				}
				got = append(got, d.Rule+": "+d.Message)
			}
			sort.Strings(want)
			sort.Strings(got)
			if len(want) == 0 && behaviours == "noise" {
				t.Fatal("check found nothing wrong with a noisy server: the comparison proves nothing")
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the doctor on the tap found:\n  %s\ncheck found:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// processRule says whether a finding judges how a process ended. check
// judges the process it started, which here is the tap, and the tap's
// record judges the server: on a slow machine (-race) check may have to
// SIGTERM the tap, which passes the signal on, and the two then describe
// two different processes' ends (status 143 against killed by SIGTERM).
// The comparison is of the exchange.
func processRule(rule string) bool {
	return rule == "stdio/forced-exit" || rule == "stdio/abnormal-exit"
}
