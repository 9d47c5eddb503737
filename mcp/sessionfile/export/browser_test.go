package export

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A real browser opens the exported page: Chromium (headless) from the
// system packages, with tesseract to read its screenshot. .ci/run installs
// both and sets MCPSCOPE_BROWSER_TESTS=1; with it set and either missing,
// the test fails rather than skips.

func browserTools(t *testing.T) (chromium, tesseract string) {
	t.Helper()
	if os.Getenv("MCPSCOPE_BROWSER_TESTS") == "" {
		t.Skip("set MCPSCOPE_BROWSER_TESTS=1 (see .ci/run) to open the export in headless Chromium")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Fatal("MCPSCOPE_BROWSER_TESTS is set but chromium is not installed")
	}
	tesseract, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal("MCPSCOPE_BROWSER_TESTS is set but tesseract is not installed")
	}
	return chromium, tesseract
}

// visit is what the browser did with a page.
type visit struct {
	console  []string // console messages (errors, warnings, CSP refusals)
	requests []string // network requests the page made
	text     string   // the screenshot, read by OCR
}

func openInChromium(t *testing.T, chromium, tesseract, page string) visit {
	t.Helper()
	dir := t.TempDir()
	shot, netlog := filepath.Join(dir, "shot.png"), filepath.Join(dir, "net.json")
	// Generous: Chromium and OCR share two cores with the other packages' tests.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--no-first-run", "--disable-background-networking",
		"--window-size=1100,1400", "--screenshot="+shot, "--log-net-log="+netlog,
		"--enable-logging=stderr", "--v=0", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	var v visit
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			v.console = append(v.console, line)
		}
	}
	// The net log: a request the page started has the page's origin
	// ("null" for a file) as initiator; the browser's own background
	// requests have none ("not an origin").
	raw, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the net log has no URL_REQUEST_START_JOB events: the check would see nothing")
	}
	for _, e := range log.Events {
		if e.Type == start && e.Params.URL != "" && e.Params.Initiator != "not an origin" {
			v.requests = append(v.requests, e.Params.URL)
		}
	}
	out, err := exec.CommandContext(ctx, tesseract, shot, "-").Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	v.text = string(out)
	return v
}

func TestExportedHTMLInChromium(t *testing.T) {
	chromium, tesseract := browserTools(t)
	dir := t.TempDir()

	// The harness must see what it looks for: a page with a console
	// error and a request.
	control := filepath.Join(dir, "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><h1>control page</h1><img src="http://127.0.0.1:9/x.png"><script>console.error("control error")</script></body></html>`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := openInChromium(t, chromium, tesseract, control)
	if len(c.console) == 0 || len(c.requests) == 0 || !strings.Contains(strings.ToLower(c.text), "control page") {
		t.Fatalf("the harness is blind: console %v, requests %v, text %q", c.console, c.requests, c.text)
	}

	page := filepath.Join(dir, "session.html")
	var buf bytes.Buffer
	if err := HTML(&buf, load(t, brokenFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	v := openInChromium(t, chromium, tesseract, page)
	if len(v.console) > 0 {
		t.Errorf("console messages: %v", v.console)
	}
	if len(v.requests) > 0 {
		t.Errorf("network requests: %v", v.requests)
	}
	// The screenshot shows the server's name, the diagnostics heading and
	// the first finding (OCR may drop punctuation, so letters are compared).
	letters := regexp.MustCompile(`[^a-z]+`)
	text := letters.ReplaceAllString(strings.ToLower(v.text), "")
	for _, want := range []string{"broken-server", "Diagnostics", "framing/non-json-stdout", "errors, 2 warning"} {
		if !strings.Contains(text, letters.ReplaceAllString(strings.ToLower(want), "")) {
			t.Errorf("the screenshot does not show %q; OCR read:\n%s", want, v.text)
		}
	}
}
