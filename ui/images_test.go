package ui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/panes/termimage"
)

// follow runs cmd and what it leads to as the program would, and returns
// what was written raw to the terminal on the way.
func follow(m *Model, cmd tea.Cmd) string {
	var raw strings.Builder
	var step func(tea.Cmd)
	step = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				step(c)
			}
		case tea.RawMsg:
			fmt.Fprint(&raw, msg.Msg)
		default:
			_, next := m.Update(msg)
			step(next)
		}
	}
	step(cmd)
	return raw.String()
}

func imageCall(t *testing.T) toolCalledMsg {
	m := image.NewRGBA(image.Rect(0, 0, 64, 32))
	for i := range m.Pix {
		m.Pix[i] = uint8(i)
	}
	m.SetRGBA(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	result := json.RawMessage(fmt.Sprintf(`{"content":[{"type":"image","data":%q,"mimeType":"image/png"}]}`, base64.StdEncoding.EncodeToString(b.Bytes())))
	return toolCalledMsg{result: panes.ToolResultMsg{Name: "shot", Result: result}}
}

// With the kitty protocol, the result view sends its image when it shows
// it and deletes it when esc leaves the view.
func TestLeavingTheResultDeletesItsKittyImage(t *testing.T) {
	t.Setenv("TMUX", "")
	m := New(Config{Target: "test server", Images: "kitty"})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	feed(m, sessionEvents())
	_, cmd := m.Update(imageCall(t))
	sent := follow(m, cmd)
	id := regexp.MustCompile(`^\x1b_G[^;]*\bi=(\d+),`).FindStringSubmatch(sent)
	if id == nil || !strings.Contains(sent, "U=1") || !strings.Contains(sent, "a=T") {
		t.Fatalf("no kitty image sent: %q", sent[:min(len(sent), 120)])
	}
	if !strings.ContainsRune(m.View().Content, kitty.Placeholder) {
		t.Fatal("no placeholder cells on screen")
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	left := follow(m, cmd)
	if m.modal == modalResult {
		t.Fatal("esc left the result open")
	}
	if want := "\x1b_Ga=d,d=I,i=" + id[1] + ",q=2\x1b\\"; left != want {
		t.Fatalf("leaving wrote %q, want %q", left, want)
	}
	if m.screen.Live() != 0 {
		t.Fatalf("%d images still live", m.screen.Live())
	}
	if out := m.ReleaseImages(); out != "" {
		t.Fatalf("at exit: %q for images already deleted", out)
	}
}

// In auto, the terminal's answers switch the view to kitty; until then,
// and where the terminal says nothing of kitty, half-blocks.
func TestImagesFollowTheTerminalsAnswer(t *testing.T) {
	t.Setenv("TMUX", "")
	for _, kittyAnswers := range []bool{false, true} {
		m := New(Config{Target: "test server"})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		feed(m, sessionEvents())
		if m.screen.Protocol() != termimage.Blocks {
			t.Fatalf("before any answer: %s", m.screen.Protocol())
		}
		_, cmd := m.Update(imageCall(t))
		follow(m, cmd)
		if !strings.Contains(ansi.Strip(m.View().Content), "▀") {
			t.Fatal("no half-block preview before the answer")
		}
		if kittyAnswers {
			m.Update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: 31}, Payload: []byte("OK")})
		}
		_, cmd = m.Update(uv.PrimaryDeviceAttributesEvent{62, 22})
		sent := follow(m, cmd)
		want := termimage.Blocks
		if kittyAnswers {
			want = termimage.Kitty
		}
		if m.screen.Protocol() != want {
			t.Fatalf("kitty answered %v: %s", kittyAnswers, m.screen.Protocol())
		}
		if got := strings.ContainsRune(m.View().Content, kitty.Placeholder); got != kittyAnswers {
			t.Fatalf("kitty answered %v: placeholders on screen %v", kittyAnswers, got)
		}
		if got := strings.Contains(sent, "a=T"); got != kittyAnswers {
			t.Fatalf("kitty answered %v: image sent %v", kittyAnswers, got)
		}
	}
}
