package apps

import (
	"encoding/json"
	"reflect"
	"testing"
)

// basicVanillaTool is server-basic-vanillajs@2.0.3's tools/list entry as it
// sent it (outputSchema left out): both MCP keys, no visibility.
const basicVanillaTool = `{"name":"get-time","title":"Get Time","description":"Returns the current server time as an ISO 8601 string.","inputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{}},"_meta":{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}}`

func TestParseToolReadsEveryKey(t *testing.T) {
	yes := true
	cases := []struct {
		name  string
		entry string
		want  ToolView
		uri   string
		d     Dialect
		model bool
		app   bool
	}{
		{"real server, both keys", basicVanillaTool,
			ToolView{ResourceURI: "ui://get-time/mcp-app.html", FlatResourceURI: "ui://get-time/mcp-app.html"},
			"ui://get-time/mcp-app.html", DialectMCPApps, true, true},
		{"no _meta", `{"name":"t"}`, ToolView{}, "", DialectNone, true, true},
		{"_meta null", `{"name":"t","_meta":null}`, ToolView{}, "", DialectNone, true, true},
		{"flat key only", `{"name":"t","_meta":{"ui/resourceUri":"ui://a"}}`,
			ToolView{FlatResourceURI: "ui://a"}, "ui://a", DialectMCPApps, true, true},
		{"skybridge", `{"name":"t","_meta":{"openai/outputTemplate":"ui://w.html","openai/widgetAccessible":true}}`,
			ToolView{OutputTemplate: "ui://w.html", WidgetAccessible: &yes}, "ui://w.html", DialectSkybridge, true, true},
		{"both dialects: the MCP key wins", `{"name":"t","_meta":{"openai/outputTemplate":"ui://sky","ui":{"resourceUri":"ui://mcp"}}}`,
			ToolView{ResourceURI: "ui://mcp", OutputTemplate: "ui://sky"}, "ui://mcp", DialectMCPApps, true, true},
		{"app only", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://a","visibility":["app"]}}}`,
			ToolView{ResourceURI: "ui://a", Visibility: []string{"app"}}, "ui://a", DialectMCPApps, false, true},
		{"model only, no view", `{"name":"t","_meta":{"ui":{"visibility":["model"]}}}`,
			ToolView{Visibility: []string{"model"}}, "", DialectNone, true, false},
		{"empty visibility", `{"name":"t","_meta":{"ui":{"visibility":[]}}}`,
			ToolView{Visibility: []string{}}, "", DialectNone, false, false},
		{"wrong types", `{"name":"t","_meta":{"ui":{"resourceUri":7,"visibility":["app",3]},"ui/resourceUri":false,"openai/outputTemplate":{},"openai/widgetAccessible":"yes"}}`,
			ToolView{Visibility: []string{"app"}, Malformed: []string{
				"_meta.ui.resourceUri is not a string",
				"_meta.ui.visibility is not an array of strings",
				`_meta["ui/resourceUri"] is not a string`,
				`_meta["openai/outputTemplate"] is not a string`,
				`_meta["openai/widgetAccessible"] is not a boolean`,
			}}, "", DialectNone, false, true},
		{"visibility not an array reads as absent", `{"name":"t","_meta":{"ui":{"visibility":"app"}}}`,
			ToolView{Malformed: []string{"_meta.ui.visibility is not an array of strings"}}, "", DialectNone, true, true},
		{"ui not an object", `{"name":"t","_meta":{"ui":"x"}}`,
			ToolView{Malformed: []string{"_meta.ui is not an object"}}, "", DialectNone, true, true},
		{"_meta not an object", `{"name":"t","_meta":[1]}`,
			ToolView{Malformed: []string{"_meta is not an object"}}, "", DialectNone, true, true},
		{"not an object", `[]`, ToolView{}, "", DialectNone, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseTool(json.RawMessage(c.entry))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParseTool = %#v\nwant %#v", got, c.want)
			}
			if got.URI() != c.uri || got.Dialect() != c.d || got.HasView() != (c.uri != "") {
				t.Errorf("URI %q dialect %v HasView %v; want %q %v", got.URI(), got.Dialect(), got.HasView(), c.uri, c.d)
			}
			if got.VisibleToModel() != c.model || got.VisibleToApp() != c.app {
				t.Errorf("visible to model %v, app %v; want %v, %v", got.VisibleToModel(), got.VisibleToApp(), c.model, c.app)
			}
			if HiddenFromModel(json.RawMessage(c.entry)) == c.model {
				t.Errorf("HiddenFromModel disagrees with VisibleToModel")
			}
		})
	}
}

func TestVisibilityLabelAndUnknown(t *testing.T) {
	for _, c := range []struct {
		vis     []string
		label   string
		unknown []string
	}{
		{nil, "model, app", nil},
		{[]string{}, "none", nil},
		{[]string{"app"}, "app", nil},
		{[]string{"model", "user", "App"}, "model, user, App", []string{"user", "App"}},
	} {
		v := ToolView{Visibility: c.vis}
		if got := v.VisibilityLabel(); got != c.label {
			t.Errorf("VisibilityLabel(%q) = %q, want %q", c.vis, got, c.label)
		}
		if got := v.UnknownVisibility(); !reflect.DeepEqual(got, c.unknown) {
			t.Errorf("UnknownVisibility(%q) = %q, want %q", c.vis, got, c.unknown)
		}
	}
}

func TestMCPAppsURIIgnoresTheChatGPTKey(t *testing.T) {
	if got := (ToolView{OutputTemplate: "ui://s"}).MCPAppsURI(); got != "" {
		t.Errorf("MCPAppsURI = %q, want none", got)
	}
	if got := (ToolView{FlatResourceURI: "ui://f", OutputTemplate: "ui://s"}).MCPAppsURI(); got != "ui://f" {
		t.Errorf("MCPAppsURI = %q, want the flat key's", got)
	}
}

func TestParseResourceMeta(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name  string
		entry string
		want  ResourceMeta
	}{
		{"real server's listing: nothing declared",
			`{"uri":"ui://get-time/mcp-app.html","name":"ui://get-time/mcp-app.html","mimeType":"text/html;profile=mcp-app"}`,
			ResourceMeta{}},
		{"everything",
			`{"uri":"ui://a","_meta":{"ui":{"csp":{"connectDomains":["https://api.x.com"],"resourceDomains":["https://cdn.x.com"],"frameDomains":["https://y.com"],"baseUriDomains":["https://b.com"]},"permissions":{"camera":{},"clipboardWrite":{},"zzz":{},"aaa":{}},"domain":"d.example","prefersBorder":true}}}`,
			ResourceMeta{
				CSP:           &CSP{ConnectDomains: []string{"https://api.x.com"}, ResourceDomains: []string{"https://cdn.x.com"}, FrameDomains: []string{"https://y.com"}, BaseURIDomains: []string{"https://b.com"}},
				Permissions:   &Permissions{Camera: true, ClipboardWrite: true, Unknown: []string{"aaa", "zzz"}},
				Domain:        "d.example",
				PrefersBorder: &yes,
				Raw:           json.RawMessage(`{"csp":{"connectDomains":["https://api.x.com"],"resourceDomains":["https://cdn.x.com"],"frameDomains":["https://y.com"],"baseUriDomains":["https://b.com"]},"permissions":{"camera":{},"clipboardWrite":{},"zzz":{},"aaa":{}},"domain":"d.example","prefersBorder":true}`),
			}},
		{"empty csp is declared",
			`{"_meta":{"ui":{"csp":{}}}}`,
			ResourceMeta{CSP: &CSP{}, Raw: json.RawMessage(`{"csp":{}}`)}},
		{"openai keys",
			`{"_meta":{"openai/widgetCSP":{"connect_domains":["https://a"],"resource_domains":["https://r"]},"openai/widgetDomain":"w.example","openai/widgetPrefersBorder":false}}`,
			ResourceMeta{CSP: &CSP{ConnectDomains: []string{"https://a"}, ResourceDomains: []string{"https://r"}}, Domain: "w.example", PrefersBorder: &no, FromOpenAI: true}},
		{"ui wins over openai keys",
			`{"_meta":{"ui":{"domain":"u"},"openai/widgetDomain":"w"}}`,
			ResourceMeta{Domain: "u", Raw: json.RawMessage(`{"domain":"u"}`)}},
		{"wrong types",
			`{"_meta":{"ui":{"csp":{"connectDomains":"https://a","resourceDomains":[1,"https://r"]},"permissions":[],"domain":1,"prefersBorder":"yes"}}}`,
			ResourceMeta{CSP: &CSP{ResourceDomains: []string{"https://r"}}, Raw: json.RawMessage(`{"csp":{"connectDomains":"https://a","resourceDomains":[1,"https://r"]},"permissions":[],"domain":1,"prefersBorder":"yes"}`),
				Malformed: []string{
					"_meta.ui.csp.connectDomains is not an array of strings",
					"_meta.ui.csp.resourceDomains is not an array of strings",
					"_meta.ui.permissions is not an object",
					"_meta.ui.domain is not a string",
					"_meta.ui.prefersBorder is not a boolean",
				}}},
		{"csp not an object",
			`{"_meta":{"ui":{"csp":true}}}`,
			ResourceMeta{Raw: json.RawMessage(`{"csp":true}`), Malformed: []string{"_meta.ui.csp is not an object"}}},
		{"_meta not an object", `{"_meta":"x"}`, ResourceMeta{Malformed: []string{"_meta is not an object"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseResource(json.RawMessage(c.entry))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParseResource = %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestPermissionNamesInTheSpecsOrder(t *testing.T) {
	p := Permissions{ClipboardWrite: true, Camera: true, Geolocation: true, Microphone: true, Unknown: []string{"usb"}}
	want := []string{"camera", "microphone", "geolocation", "clipboardWrite", "usb"}
	if got := p.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
}

func TestEffectivePrefersTheContentItem(t *testing.T) {
	listing := ResourceMeta{Domain: "listing"}
	content := ResourceMeta{Domain: "content"}
	if got := Effective(listing, content).Domain; got != "content" {
		t.Errorf("Effective = %q, want the content item's", got)
	}
	if got := Effective(listing, ResourceMeta{}).Domain; got != "listing" {
		t.Errorf("Effective = %q, want the listing's when the item declares nothing", got)
	}
}

func TestCapabilityOf(t *testing.T) {
	c, ok := CapabilityOf(json.RawMessage(`{"tools":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`))
	if !ok || !c.SupportsMCPApps() || len(c.Malformed) != 0 {
		t.Errorf("CapabilityOf = %#v, %v; want the MCP Apps MIME type", c, ok)
	}
	if _, ok := CapabilityOf(json.RawMessage(`{"tools":{}}`)); ok {
		t.Error("CapabilityOf found the extension where none is declared")
	}
	c, ok = CapabilityOf(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/ui":{}}}`))
	if !ok || c.SupportsMCPApps() {
		t.Errorf("an empty capability: %#v, %v; want declared without MIME types", c, ok)
	}
	c, ok = CapabilityOf(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":"text/html"}}}`))
	if !ok || len(c.Malformed) != 1 {
		t.Errorf("a string mimeTypes: %#v; want it called malformed", c)
	}
	// What mcpscope offers reads back as MCP Apps support.
	offered, _ := json.Marshal(map[string]any{"extensions": map[string]json.RawMessage{ExtensionID: ClientCapability()}})
	if c, ok := CapabilityOf(offered); !ok || !c.SupportsMCPApps() {
		t.Errorf("ClientCapability %s does not read as MCP Apps support", ClientCapability())
	}
}

func TestDialectMIME(t *testing.T) {
	for _, d := range []Dialect{DialectMCPApps, DialectSkybridge} {
		if DialectOfMIME(d.MIMEType()) != d {
			t.Errorf("%v does not round-trip through its MIME type", d)
		}
	}
	for _, m := range []string{"", "text/html", "text/html; profile=mcp-app"} {
		if got := DialectOfMIME(m); got != DialectNone {
			t.Errorf("DialectOfMIME(%q) = %v, want none", m, got)
		}
	}
}

func TestCSPHeader(t *testing.T) {
	var none *CSP
	if got := none.Header(); got != DefaultCSP {
		t.Errorf("nil CSP: %q, want the default", got)
	}
	// A csp declared empty: no domains, and what the spec says an empty
	// list means for frames and the base URI.
	if got, want := (&CSP{}).Header(), "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "+
		"img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'"; got != want {
		t.Errorf("empty CSP: %q, want %q", got, want)
	}
	c := &CSP{
		ConnectDomains:  []string{"https://api.x.com", "wss://rt.x.com"},
		ResourceDomains: []string{"https://cdn.x.com", "https://x.com; script-src *", "https://*.y.com"},
		FrameDomains:    []string{"https://www.youtube.com"},
		BaseURIDomains:  []string{"https://b.x.com", "'unsafe-eval'"},
	}
	want := "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.x.com https://*.y.com; " +
		"style-src 'self' 'unsafe-inline' https://cdn.x.com https://*.y.com; img-src 'self' data: https://cdn.x.com https://*.y.com; " +
		"font-src 'self' https://cdn.x.com https://*.y.com; media-src 'self' data: https://cdn.x.com https://*.y.com; " +
		"connect-src https://api.x.com wss://rt.x.com; frame-src https://www.youtube.com; base-uri https://b.x.com"
	if got := c.Header(); got != want {
		t.Errorf("Header =\n%s\nwant\n%s", got, want)
	}
	if got, want := c.Rejected(), []string{"https://x.com; script-src *", "'unsafe-eval'"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rejected = %q, want %q", got, want)
	}
}

func TestSafeSource(t *testing.T) {
	for d, want := range map[string]bool{
		"https://cdn.x.com": true, "https://*.x.com:443/path": true, "cdn.x.com": true,
		"": false, "a b": false, "a;b": false, "a,b": false, "'self'": false, `"x"`: false, "a\nb": false, "a\x7fb": false,
	} {
		if got := SafeSource(d); got != want {
			t.Errorf("SafeSource(%q) = %v, want %v", d, got, want)
		}
	}
}

func TestWithoutExtension(t *testing.T) {
	for in, want := range map[string]string{
		`{"sampling":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`: `{"sampling":{}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{},"io.modelcontextprotocol/tasks":{}}}`:                     `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`,
		`{"sampling":{},  "roots":{}}`: `{"sampling":{},  "roots":{}}`,
		`{"extensions":[]}`:            `{"extensions":[]}`,
		`null`:                         `null`,
	} {
		if got := string(WithoutExtension(json.RawMessage(in))); got != want {
			t.Errorf("WithoutExtension(%s) = %s, want %s", in, got, want)
		}
	}
	offered := json.RawMessage(`{"roots":{},"extensions":{"` + ExtensionID + `":` + string(ClientCapability()) + `}}`)
	if _, ok := CapabilityOf(offered); !ok {
		t.Fatal("the fixture does not offer the extension")
	}
	if _, ok := CapabilityOf(WithoutExtension(offered)); ok {
		t.Error("the extension is still offered")
	}
}

// BenchmarkParseToolBigSchema is what the Tools pane pays per drawn row
// for its badges: a tool with a 100 KB input schema and a view.
func BenchmarkParseToolBigSchema(b *testing.B) {
	props := make(map[string]any, 2000)
	for i := range 2000 {
		props["p"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676))] = map[string]any{"type": "string", "description": "a property of the big schema"}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	entry := json.RawMessage(`{"name":"big","inputSchema":` + string(schema) + `,"_meta":{"ui":{"resourceUri":"ui://a","visibility":["app"]}}}`)
	b.SetBytes(int64(len(entry)))
	b.ReportAllocs()
	for b.Loop() {
		if !ParseTool(entry).HasView() {
			b.Fatal("no view")
		}
	}
}
