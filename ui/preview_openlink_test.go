package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A view's ui/open-link asks in the TUI before anything is opened: the
// ask modal shows the URL; declining answers the view with an error and
// opens nothing, accepting hands the URL to the opener. A javascript: or
// file: URL is refused without asking.
func TestPreviewOpenLinkAsksFirst(t *testing.T) {
	started := fakeOpener(t)
	p := captureProgram(t, true)
	url := previewed(t, p, 9)
	p.keys("esc")
	v := dialView(t, url)
	v.send(`{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"appInfo":{"name":"t","version":"1"},"appCapabilities":{},"protocolVersion":"2026-01-26"}}`)
	if m := v.next(p); m["id"] != float64(1) {
		t.Fatalf("ui/initialize answered %v", m)
	}

	const link = "https://example.com/docs?q=1"
	for _, c := range []struct {
		name   string
		answer []string // the keys pressed in the prompt
		opened bool
	}{
		{"declined with ctrl+d", []string{"ctrl+d"}, false},
		{"declined with esc", []string{"esc"}, false},
		{"accepted with ctrl+o", []string{"ctrl+o"}, true},
	} {
		before := len(*started)
		v.send(`{"jsonrpc":"2.0","id":2,"method":"ui/open-link","params":{"url":"` + link + `"}}`)
		p.until(c.name+": the prompt", func() bool { return p.m.modal == modalAsk })
		if s := ansi.Strip(content(p.m)); !strings.Contains(s, "open a URL?") || !strings.Contains(s, link) {
			t.Fatalf("%s: the prompt does not show the URL:\n%s", c.name, s)
		}
		if len(*started) != before {
			t.Fatalf("%s: opened before the answer: %q", c.name, *started)
		}
		p.keys(c.answer...)
		m := v.next(p)
		res, _ := m["result"].(map[string]any)
		if m["id"] != float64(2) || res == nil {
			t.Fatalf("%s: ui/open-link answered %v", c.name, m)
		}
		if isErr := res["isError"] == true; isErr == c.opened {
			t.Errorf("%s: the view was answered %v", c.name, m)
		}
		if got := (*started)[before:]; c.opened != (len(got) == 1 && got[0] == link) || len(got) > 1 {
			t.Errorf("%s: the opener was given %q", c.name, got)
		}
		if p.m.modal == modalAsk {
			t.Errorf("%s: the prompt is still open", c.name)
		}
	}

	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
		before := len(*started)
		v.send(`{"jsonrpc":"2.0","id":3,"method":"ui/open-link","params":{"url":"` + bad + `"}}`)
		m := v.next(p)
		if res, _ := m["result"].(map[string]any); m["id"] != float64(3) || res["isError"] != true {
			t.Errorf("%s: answered %v, want an error", bad, m)
		}
		if p.m.modal == modalAsk {
			t.Errorf("%s: asked about a URL that is never opened", bad)
		}
		if len(*started) != before {
			t.Errorf("%s: the opener was given %q", bad, (*started)[before:])
		}
	}
}
