package ui

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// fakeSession stands for the live session's process: it records that it
// ran with the terminal and ends when told.
type fakeSession struct {
	ran, end chan struct{}
}

func (f *fakeSession) Run() error {
	close(f.ran)
	<-f.end
	return nil
}
func (f *fakeSession) SetStdin(io.Reader)  {}
func (f *fakeSession) SetStdout(io.Writer) {}
func (f *fakeSession) SetStderr(io.Writer) {}

// The LiveSession key (L) of a view that has one runs it with the
// terminal, and the view comes back when it ends, saying so; the help bar
// shows the key only where it applies.
func TestLiveSessionKeyRunsTheSessionAndComesBack(t *testing.T) {
	f := &fakeSession{ran: make(chan struct{}), end: make(chan struct{})}
	made := 0
	m := New(Config{Theme: "dark", Target: "tap weather", LiveSession: func() tea.ExecCommand { made++; return f }})
	if !strings.Contains(helpText(m), "L live session") {
		t.Errorf("the help lacks the live-session key: %s", helpText(m))
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 35))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("live session")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'L', Text: "L"})
	select {
	case <-f.ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the live session did not run")
	}
	close(f.end)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("back from the live session")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	tm.FinalModel(t).(*Model).Close()
	if made != 1 {
		t.Errorf("the live session was made %d times", made)
	}

	plain := New(Config{Theme: "dark", Target: "a live server"})
	defer plain.Close()
	if strings.Contains(helpText(plain), "live session") {
		t.Error("a view without a live session offers the key")
	}
	plain.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	press(plain, "L") // nothing happens, nothing breaks
}

// instantSession ends as soon as it runs, as a live session whose server
// cannot start does.
type instantSession struct{ runs int }

func (s *instantSession) Run() error          { s.runs++; return nil }
func (s *instantSession) SetStdin(io.Reader)  {}
func (s *instantSession) SetStdout(io.Writer) {}
func (s *instantSession) SetStderr(io.Writer) {}

// A live session that ends at once still hands back a screen that draws:
// Bubble Tea's renderer, restarted before its old goroutine had stopped
// the frame ticker, froze for good in about one run in five.
func TestLiveSessionComesBackFromAnInstantSession(t *testing.T) {
	s := &instantSession{}
	m := New(Config{Theme: "dark", Target: "tap weather", LiveSession: func() tea.ExecCommand { return s }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 35))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("live session")) },
		teatest.WithDuration(5*time.Second))
	for i := 1; i <= 8; i++ {
		tm.Send(tea.KeyPressMsg{Code: 'L', Text: "L"})
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("back from the live session")) },
			teatest.WithDuration(5*time.Second))
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	tm.FinalModel(t).(*Model).Close()
	if s.runs != 8 {
		t.Errorf("the live session ran %d times, want 8", s.runs)
	}
}

func helpText(m *Model) string {
	var b strings.Builder
	for _, k := range m.ShortHelp() {
		if k.Enabled() {
			b.WriteString(k.Help().Key + " " + k.Help().Desc + " · ")
		}
	}
	return b.String()
}
