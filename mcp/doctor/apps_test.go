package doctor_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// appServer is a scripted MCP Apps server: its tools (entries), its
// resources/list entries, and what resources/read returns (one reply for
// every read).
func appServer(toolEntries, resources []string, read string) mcptest.Script {
	return mcptest.Script{Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`), On: map[string]lines{
		"tools/list":     {{tools(toolEntries...)}},
		"resources/list": {{res(`{"resources":[` + strings.Join(resources, ",") + `]}`)}},
		"resources/read": {{read}},
	}}
}

// viewTool is a tool whose view is uri, under both MCP keys as the SDK's
// registerAppTool writes them.
func viewTool(name, uri string) string {
	return tool(name, `"_meta":{"ui":{"resourceUri":"`+uri+`"},"ui/resourceUri":"`+uri+`"}`)
}

// viewContents is a resources/read result of one item.
func viewContents(uri, mime, html, meta string) string {
	h, _ := json.Marshal(html)
	item := `{"uri":"` + uri + `","mimeType":"` + mime + `","text":` + string(h)
	if meta != "" {
		item += `,"_meta":` + meta
	}
	return res(`{"contents":[` + item + `}]}`)
}

// listAndRead lists tools and resources, then reads uri, as check does.
func listAndRead(uri string) func(ctx context.Context, c *mcp.Client) {
	return func(ctx context.Context, c *mcp.Client) {
		_, _, _ = c.ListAll(ctx, "tools/list")
		_, _, _ = c.ListAll(ctx, "resources/list")
		_, _ = c.Call(ctx, "resources/read", map[string]any{"uri": uri}, mcp.WithTimeout(2*time.Second))
	}
}

const (
	appMIME    = "text/html;profile=mcp-app"
	appURI     = "ui://t/app.html"
	appListing = `{"uri":"ui://t/app.html","name":"app","mimeType":"text/html;profile=mcp-app"}`
	cdnScript  = `<html><head><script src="https://cdn.example.com/app.js"></script></head><body></body></html>`
)

func appRuleCases() []ruleCase {
	big := "<html><body>" + strings.Repeat("x", 800<<10) + "</body></html>"
	return []ruleCase{
		{rule: "apps/template-unresolved", script: appServer([]string{viewTool("show", appURI)}, nil, rpcErr(-32002, "Resource not found", "")), act: listAndRead(appURI)},
		{rule: "apps/template-scheme", script: toolList(tool("show", `"_meta":{"ui":{"resourceUri":"https://x.example/app.html"}}`)), act: listAll("tools/list")},
		{rule: "apps/template-mime", script: appServer([]string{viewTool("show", appURI)}, []string{appListing}, viewContents(appURI, "text/html", "<p>hi</p>", "")), act: listAndRead(appURI)},
		{rule: "apps/template-keys-differ", script: toolList(tool("show", `"_meta":{"ui":{"resourceUri":"ui://a"},"ui/resourceUri":"ui://b"}`)), act: listAll("tools/list")},
		{rule: "apps/visibility", script: toolList(tool("show", `"_meta":{"ui":{"visibility":["app","assistant"]}}`)), act: listAll("tools/list")},
		{rule: "apps/meta-shape", script: appServer([]string{viewTool("show", appURI)}, []string{appListing},
			viewContents(appURI, appMIME, "<p>hi</p>", `{"ui":{"csp":{"connectDomains":"https://api.example.com"}}}`)), act: listAndRead(appURI)},
		{rule: "apps/csp-static-scan", script: appServer([]string{viewTool("show", appURI)}, []string{appListing}, viewContents(appURI, appMIME, cdnScript, "")), act: listAndRead(appURI)},
		// Too big for the fake server's environment: fed as frames.
		{rule: "apps/html-size", events: exchange(
			"tools/list", `{}`, `{"tools":[`+viewTool("show", appURI)+`]}`,
			"resources/read", `{"uri":"`+appURI+`"}`, strings.TrimSuffix(strings.TrimPrefix(viewContents(appURI, appMIME, big, ""), `{"jsonrpc":"2.0","id":{{id}},"result":`), "}"))},
	}
}

// exchange is requests and their answers as frames, in pairs of method,
// params, result.
func exchange(triples ...string) []mcp.Event {
	var out []mcp.Event
	for i := 0; i+2 < len(triples); i += 3 {
		seq := int64(len(out) + 1)
		id := itoa(int(seq))
		out = append(out,
			mcp.FrameEvent{Frame: &mcp.Frame{Seq: seq, Dir: mcp.Outbound, Transport: "stdio", Kind: mcp.KindRequest, Method: triples[i], ID: mcp.ID(id),
				Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + triples[i] + `","params":` + triples[i+1] + `}`)}},
			mcp.FrameEvent{Frame: &mcp.Frame{Seq: seq + 1, Dir: mcp.Inbound, Transport: "stdio", Kind: mcp.KindResponse, ID: mcp.ID(id), ReplyTo: seq, ReplyToMethod: triples[i],
				Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + triples[i+2] + `}`)}})
	}
	return out
}

// appsFindings are the apps/ diagnostics of a session.
func appsFindings(s *session) []string {
	var out []string
	for _, d := range s.diags {
		if strings.HasPrefix(d.Rule, "apps/") {
			out = append(out, d.Rule+": "+d.Message)
		}
	}
	return out
}

// A view done right has no apps finding: both keys alike, listed and read
// with its MIME type, a script from an origin its csp allows, a fetch to
// an API in connectDomains, and a tool for views alone.
func TestAppsRulesQuietOnAGoodView(t *testing.T) {
	html := `<html><head><script src="https://cdn.example.com/app.js"></script></head>` +
		`<body><script>fetch("https://api.example.com/v1/time")</script></body></html>`
	meta := `{"ui":{"csp":{"resourceDomains":["https://cdn.example.com"],"connectDomains":["https://api.example.com"]},"prefersBorder":true}}`
	sc := appServer([]string{viewTool("show", appURI), tool("refresh", `"_meta":{"ui":{"visibility":["app"]}}`)}, []string{appListing}, viewContents(appURI, appMIME, html, meta))
	s := run(t, scripted(sc), mcp.Options{}, doctor.Options{}, listAndRead(appURI))
	if f := appsFindings(s); len(f) > 0 {
		t.Errorf("findings on a good view:\n  %s", strings.Join(f, "\n  "))
	}
}

// The scan's finding names the blocked URL, its directive and the domain
// to declare; the same view with the origin declared (in the listing, the
// content item declaring nothing) has no finding.
func TestAppsCSPScanNamesWhatIsBlocked(t *testing.T) {
	sc := appServer([]string{viewTool("show", appURI)}, []string{appListing}, viewContents(appURI, appMIME, cdnScript, ""))
	s := run(t, scripted(sc), mcp.Options{}, doctor.Options{}, listAndRead(appURI))
	f := strings.Join(appsFindings(s), "\n")
	for _, want := range []string{`Static scan of ui://t/app.html, the view of tool "show"`, "the default CSP (no csp declared)",
		"<script src> https://cdn.example.com/app.js (script-src; add https://cdn.example.com to resourceDomains)"} {
		if !strings.Contains(f, want) {
			t.Errorf("the finding lacks %q:\n%s", want, f)
		}
	}
	listed := `{"uri":"ui://t/app.html","name":"app","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"resourceDomains":["https://cdn.example.com"]}}}}`
	sc = appServer([]string{viewTool("show", appURI)}, []string{listed}, viewContents(appURI, appMIME, cdnScript, ""))
	s = run(t, scripted(sc), mcp.Options{}, doctor.Options{}, listAndRead(appURI))
	if f := appsFindings(s); len(f) > 0 {
		t.Errorf("findings with the origin declared:\n  %s", strings.Join(f, "\n  "))
	}
}

// A skybridge widget wants text/html+skybridge; a blob is decoded before
// the scan; a read that returns another URI does not resolve the view.
func TestAppsSkybridgeBlobAndWrongURI(t *testing.T) {
	uri := "ui://widget/w.html"
	sky := tool("w", `"_meta":{"openai/outputTemplate":"`+uri+`"}`)
	blob := base64.StdEncoding.EncodeToString([]byte(`<img src="https://img.example.com/a.png">`))
	read := res(`{"contents":[{"uri":"` + uri + `","mimeType":"text/html+skybridge","blob":"` + blob + `"}]}`)
	s := run(t, scripted(appServer([]string{sky}, nil, read)), mcp.Options{}, doctor.Options{}, listAndRead(uri))
	f := strings.Join(appsFindings(s), "\n")
	if strings.Contains(f, "apps/template-mime") || !strings.Contains(f, "<img src> https://img.example.com/a.png (img-src") {
		t.Errorf("skybridge widget with a blob:\n%s", f)
	}
	s = run(t, scripted(appServer([]string{sky}, nil, viewContents(uri, appMIME, "<p>", ""))), mcp.Options{}, doctor.Options{}, listAndRead(uri))
	if f := strings.Join(appsFindings(s), "\n"); !strings.Contains(f, `apps/template-mime: ui://widget/w.html, the widget of tool "w" (openai/outputTemplate), has MIME type "text/html;profile=mcp-app", not "text/html+skybridge".`) {
		t.Errorf("skybridge widget served as mcp-app:\n%s", f)
	}
	s = run(t, scripted(appServer([]string{viewTool("show", appURI)}, nil, viewContents("ui://other", appMIME, "<p>", ""))), mcp.Options{}, doctor.Options{}, listAndRead(appURI))
	if f := strings.Join(appsFindings(s), "\n"); !strings.Contains(f, "apps/template-unresolved: resources/read of ui://t/app.html, the view of tool \"show\", returned 1 content items, none for that URI.") {
		t.Errorf("a read of another URI:\n%s", f)
	}
}

// The size rule's summary names the bound the rule applies.
func TestAppsHTMLSizeSummaryNamesTheBound(t *testing.T) {
	r, _ := doctor.Rule("apps/html-size")
	if want := itoa(apps.MaxHTMLBytes/1024) + " KiB"; !strings.Contains(r.Summary, want) {
		t.Errorf("summary %q does not name %s", r.Summary, want)
	}
}

// A server that declares no resources cannot give the view its tool
// names: said at the listing, once per view.
func TestAppsTemplateWithoutResourcesCapability(t *testing.T) {
	s := run(t, scripted(toolList(viewTool("show", appURI), viewTool("again", appURI))), mcp.Options{}, doctor.Options{}, listAll("tools/list"))
	f := appsFindings(s)
	if len(f) != 1 || !strings.Contains(f[0], `apps/template-unresolved: Tool "show" names the view ui://t/app.html, but the server declares no resources capability`) {
		t.Errorf("findings:\n  %s", strings.Join(f, "\n  "))
	}
	s = run(t, scripted(appServer([]string{viewTool("show", appURI)}, []string{appListing}, viewContents(appURI, appMIME, "<p>", ""))), mcp.Options{}, doctor.Options{}, listAll("tools/list"))
	if f := appsFindings(s); len(f) != 0 {
		t.Errorf("with resources declared and nothing read:\n  %s", strings.Join(f, "\n  "))
	}
}
