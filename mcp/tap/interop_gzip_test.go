package tap

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official TypeScript client (Node's fetch asks for "gzip, deflate")
// talks to server-everything deployed behind a compressing proxy, as
// behind nginx's gzip: through the tap it sees what it sees directly, and
// the record holds every server frame decoded, none of them compressed
// bytes.
func TestTypeScriptClientThroughTapToACompressingProxy(t *testing.T) {
	node, script, modules := serverEverything(t)
	dir := privateDirs(t)
	endpoint := startEverythingHTTP(t, node, script)
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	proxy.FlushInterval = -1 // each event as it comes, as nginx does with buffering off
	front := httptest.NewServer(compressing("gzip", proxy))
	defer front.Close()
	compressedURL := front.URL + target.Path

	local, stop := startHTTPTap(t, compressedURL)
	run := func(u string) []byte {
		cmd := exec.Command(node, filepath.Join("testdata", "tsclient.cjs"), u)
		cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", u, err, stderr.String())
		}
		return out
	}
	direct, tapped := run(compressedURL), run(local)
	stop()
	if len(direct) == 0 || !bytes.Equal(direct, tapped) {
		t.Fatalf("the TypeScript client saw other messages through the tap (%s direct, %s tapped):\n%s\n---\n%s", hash(direct), hash(tapped), direct, tapped)
	}

	entries := recordedFrames(t, dir)
	answers := 0
	for _, e := range entries {
		if e.Dir != "in" {
			continue
		}
		raw, _ := e.RawBytes()
		if !json.Valid(raw) || e.Kind == "invalid" {
			t.Errorf("recorded server frame #%d is not the JSON the client read: %.120q", e.Seq, raw)
		}
		if e.Kind == "response" {
			answers++
		}
	}
	// tsclient prints one line per request it sent and per answer it got.
	if want := strings.Count(string(tapped), "\n< "); answers < want || want < 5 {
		t.Errorf("the record holds %d answers; the client got %d", answers, want)
	}
	file, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	b, _ := os.ReadFile(file[0])
	if !bytes.Contains(b, []byte(`"Content-Encoding","Value":"gzip"`)) {
		t.Error("no exchange in the record shows the answers came gzip-compressed: the test proved nothing")
	}
}
