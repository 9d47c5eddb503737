package apps

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const scanFixture = `<!doctype html><html><head>
<link rel="stylesheet" href="https://cdn.x.com/app.css">
<link rel=modulepreload href='https://cdn.x.com/chunk.js'>
<link rel="preload" as="font" href="https://fonts.x.com/a.woff2" crossorigin>
<link rel="preconnect" href="https://ignored.example">
<link rel="icon" href="/favicon.ico">
<script type="module" src="https://cdn.x.com/app.js"></script>
<script src="./local.js"></script>
<style>
@import url("https://cdn.x.com/more.css");
@font-face { font-family: X; src: url(https://fonts.x.com/b.woff2) format("woff2"); }
body { background: url('//img.x.com/bg.png'); }
</style>
</head><body>
<img src="https://img.x.com/a.png" srcset="https://img.x.com/a2.png 2x, /b.png 3x">
<img src="data:image/png;base64,AAAA">
<video src="https://media.x.com/v.mp4" poster="https://img.x.com/p.png"></video>
<iframe src="https://www.youtube.com/embed/x"></iframe>
<div style="background-image:url(https://img.x.com/c.png)"></div>
<script>
  fetch("https://api.x.com/v1/time").then(r => r.json());
  const ws = new WebSocket('wss://rt.x.com/socket');
  fetch(s.href, i); // computed: not a literal
  const schema = "https://json-schema.org/draft/2020-12/schema"; // a string, not a load
  xhr.open("GET", "https://api.y.com/data");
  import("https://esm.x.com/lib.js");
</script>
</body></html>`

func TestScanHTMLFindsWhatTheViewLoads(t *testing.T) {
	want := []Ref{
		{"https://cdn.x.com/app.css", "style-src", "<link rel=stylesheet>"},
		{"https://cdn.x.com/chunk.js", "script-src", "<link rel=modulepreload>"},
		{"https://fonts.x.com/a.woff2", "font-src", "<link rel=preload>"},
		{"https://cdn.x.com/app.js", "script-src", "<script src>"},
		{"https://img.x.com/a.png", "img-src", "<img src>"},
		{"https://img.x.com/a2.png", "img-src", "<img srcset>"},
		{"https://media.x.com/v.mp4", "media-src", "<video src>"},
		{"https://img.x.com/p.png", "img-src", "<video poster>"},
		{"https://www.youtube.com/embed/x", "frame-src", "<iframe src>"},
		{"https://fonts.x.com/b.woff2", "font-src", "@font-face url()"},
		{"https://cdn.x.com/more.css", "style-src", "@import"},
		{"//img.x.com/bg.png", "img-src", "CSS url()"},
		{"https://img.x.com/c.png", "img-src", "CSS url()"},
		{"https://api.x.com/v1/time", "connect-src", "fetch()"},
		{"wss://rt.x.com/socket", "connect-src", "WebSocket()"},
		{"https://api.y.com/data", "connect-src", "XMLHttpRequest open()"},
		{"https://esm.x.com/lib.js", "script-src", "import"},
	}
	got := ScanHTML(scanFixture)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ScanHTML =")
		for _, r := range got {
			t.Errorf("  %+v", r)
		}
	}
}

func TestCSPAllows(t *testing.T) {
	c := &CSP{
		ConnectDomains:  []string{"https://api.x.com", "wss://rt.x.com"},
		ResourceDomains: []string{"https://cdn.x.com", "https://*.img.x.com", "fonts.x.com"},
		FrameDomains:    []string{"https://www.youtube.com/embed/"},
	}
	for _, tc := range []struct {
		directive, url string
		want           bool
	}{
		{"script-src", "https://cdn.x.com/app.js", true},
		{"script-src", "https://evil.com/app.js", false},
		{"style-src", "https://cdn.x.com/a.css", true},
		{"font-src", "https://fonts.x.com/a.woff2", true}, // a scheme-less source
		{"font-src", "http://fonts.x.com/a.woff2", true},
		{"img-src", "https://a.img.x.com/p.png", true},
		{"img-src", "https://img.x.com/p.png", false}, // *. is subdomains only
		{"img-src", "//cdn.x.com/p.png", true},
		{"img-src", "https://cdn.x.com:8443/p.png", false},
		{"connect-src", "https://api.x.com/v1", true},
		{"connect-src", "wss://api.x.com/v1", false}, // https does not cover wss
		{"connect-src", "wss://rt.x.com/socket", true},
		{"connect-src", "https://cdn.x.com/data", false},
		{"frame-src", "https://www.youtube.com/embed/x", true},
		{"frame-src", "https://www.youtube.com/watch", false},
		{"object-src", "https://cdn.x.com/a.swf", false},
	} {
		if got := c.Allows(tc.directive, tc.url); got != tc.want {
			t.Errorf("Allows(%s, %s) = %v, want %v", tc.directive, tc.url, got, tc.want)
		}
	}
	var none *CSP
	if none.Allows("img-src", "https://cdn.x.com/a.png") || none.Allows("connect-src", "https://api.x.com") {
		t.Error("the default policy allows another origin")
	}
	if (&CSP{ResourceDomains: []string{"http://cdn.x.com"}}).Allows("script-src", "https://cdn.x.com/a.js") != true {
		t.Error("an http source does not admit its https upgrade")
	}
}

func TestRefFieldAndOrigin(t *testing.T) {
	for _, tc := range []struct {
		ref           Ref
		field, origin string
	}{
		{Ref{URL: "https://cdn.x.com/a.js", Directive: "script-src"}, "resourceDomains", "https://cdn.x.com"},
		{Ref{URL: "//img.x.com:8443/a.png", Directive: "img-src"}, "resourceDomains", "https://img.x.com:8443"},
		{Ref{URL: "wss://rt.x.com/s", Directive: "connect-src"}, "connectDomains", "wss://rt.x.com"},
		{Ref{URL: "https://y.com/e", Directive: "frame-src"}, "frameDomains", "https://y.com"},
		{Ref{URL: "https://y.com/a.swf", Directive: "object-src"}, "", "https://y.com"},
	} {
		if tc.ref.Field() != tc.field || tc.ref.Origin() != tc.origin {
			t.Errorf("%+v: field %q origin %q", tc.ref, tc.ref.Field(), tc.ref.Origin())
		}
	}
}

// The real basic servers' views (server-basic-vanillajs and -react at
// 2.0.3, with MCPSCOPE_THIRD_PARTY pointing at .ci/npm) load nothing from
// another origin: the scan finds nothing in 200-400 KB of bundled code.
func TestScanFindsNothingInTheRealBasicViews(t *testing.T) {
	dir := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if dir == "" {
		t.Skip("MCPSCOPE_THIRD_PARTY is not set (.ci/run sets it)")
	}
	for _, pkg := range []string{"server-basic-vanillajs", "server-basic-react"} {
		html, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "mcp-app.html"))
		if err != nil {
			t.Fatalf("%s: %v (is it installed? .ci/run installs it)", pkg, err)
		}
		if refs := ScanHTML(string(html)); len(refs) > 0 {
			t.Errorf("%s: %+v", pkg, refs)
		}
	}
}
