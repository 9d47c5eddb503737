package openurl

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckRefusesEverythingButWebURLs(t *testing.T) {
	for _, bad := range []string{
		"file:///etc/passwd", "javascript:alert(1)", "smb://evil/share", "vscode://x/y",
		"data:text/html,hi", "//no-scheme.example/x", "https:///no-host", "HTTPS:opaque", "\x1b]8;;x", "",
	} {
		if _, err := Check(bad); !errors.Is(err, ErrNotWeb) {
			t.Errorf("Check(%q) = %v, want ErrNotWeb", bad, err)
		} else if strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("Check(%q): the error carries a raw ESC: %q", bad, err)
		}
	}
	for _, good := range []string{"https://as.example/authorize?x=1", "http://127.0.0.1:8080/cb", "HTTPS://Example.COM/"} {
		if _, err := Check(good); err != nil {
			t.Errorf("Check(%q) = %v", good, err)
		}
	}
	if h := Host("https://as.example:8443/a"); h != "as.example:8443" {
		t.Errorf("Host = %q", h)
	}
}

func TestOpenNeverStartsARefusedURL(t *testing.T) {
	var started []string
	oldO, oldS := Opener, Start
	t.Cleanup(func() { Opener, Start = oldO, oldS })
	Opener = func() (string, error) { return "/bin/fake-open", nil }
	Start = func(_, raw string) error { started = append(started, raw); return nil }
	if _, err := Open("file:///etc/passwd"); err == nil {
		t.Fatal("file:// opened")
	}
	if _, err := Open("https://ok.example/"); err != nil {
		t.Fatal(err)
	}
	if len(started) != 1 || started[0] != "https://ok.example/" {
		t.Fatalf("started %q", started)
	}
}
