package doctor

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
)

// maxAppViews bounds what the doctor remembers of views: the templates
// tools name and the view resources a listing gave.
const maxAppViews = 4096

// appsState is what the doctor knows of the session's MCP Apps views.
type appsState struct {
	// templates are the tools naming each view URI.
	templates map[string][]appTemplate
	// listed are the view resources of resources/list, by URI.
	listed map[string]apps.ResourceMeta
}

// appTemplate is one tool's key naming a view.
type appTemplate struct {
	tool    string
	dialect apps.Dialect
}

func (l *Linter) appsState() *appsState {
	if l.apps == nil {
		l.apps = &appsState{templates: map[string][]appTemplate{}, listed: map[string]apps.ResourceMeta{}}
	}
	return l.apps
}

// appTool judges a tools/list entry's view and remembers its templates.
func (l *Linter) appTool(f *mcp.Frame, name string, raw json.RawMessage) {
	v := apps.ParseTool(raw)
	if !v.HasView() && v.Visibility == nil && len(v.Malformed) == 0 {
		return
	}
	label := QuoteName(name)
	var shape, visibility []string
	for _, m := range v.Malformed {
		if strings.Contains(m, "visibility") {
			visibility = append(visibility, m)
		} else {
			shape = append(shape, m)
		}
	}
	if len(shape) > 0 {
		l.reportOnce("apps/meta-shape:tool:"+name, "apps/meta-shape", fmt.Sprintf("Tool %s: %s.", label, strings.Join(shape, "; ")), f.Seq)
	}
	if u := v.UnknownVisibility(); len(u) > 0 {
		visibility = append(visibility, "_meta.ui.visibility has "+quoteList(u)+", which the spec does not define (only \"model\" and \"app\")")
	}
	if len(visibility) > 0 {
		l.reportOnce("apps/visibility:"+name, "apps/visibility", fmt.Sprintf("Tool %s: %s.", label, strings.Join(visibility, "; ")), f.Seq)
	}
	if v.ResourceURI != "" && v.FlatResourceURI != "" && v.ResourceURI != v.FlatResourceURI {
		l.reportOnce("apps/template-keys-differ:"+name, "apps/template-keys-differ", fmt.Sprintf(`Tool %s names the view %q under _meta.ui.resourceUri but %q under _meta["ui/resourceUri"].`, label, v.ResourceURI, v.FlatResourceURI), f.Seq)
	}
	st := l.appsState()
	for _, k := range []struct {
		key, uri string
		dialect  apps.Dialect
	}{
		{"_meta.ui.resourceUri", v.ResourceURI, apps.DialectMCPApps},
		{`_meta["ui/resourceUri"]`, v.FlatResourceURI, apps.DialectMCPApps},
		{`_meta["openai/outputTemplate"]`, v.OutputTemplate, apps.DialectSkybridge},
	} {
		if k.uri == "" {
			continue
		}
		if !apps.IsUIURI(k.uri) {
			l.reportOnce("apps/template-scheme:"+name+"\x00"+k.uri, "apps/template-scheme", fmt.Sprintf("Tool %s names the view %q under %s: not a ui:// URI, so hosts do not render it.", label, k.uri, k.key), f.Seq)
			continue
		}
		if !l.hasServerCap("resources") {
			l.reportOnce("apps/template-unresolved:"+k.uri, "apps/template-unresolved", fmt.Sprintf("Tool %s names the view %s, but the server declares no resources capability, so a host cannot read it.", label, k.uri), f.Seq)
		}
		known := st.templates[k.uri]
		if known == nil && len(st.templates) >= maxAppViews {
			continue
		}
		if !containsTemplate(known, name, k.dialect) {
			st.templates[k.uri] = append(known, appTemplate{name, k.dialect})
		}
	}
}

func containsTemplate(ts []appTemplate, tool string, d apps.Dialect) bool {
	for _, t := range ts {
		if t.tool == tool && t.dialect == d {
			return true
		}
	}
	return false
}

// appListed remembers a view resource of resources/list and judges its
// _meta.ui.
func (l *Linter) appListed(f *mcp.Frame, raw json.RawMessage) {
	e := object(raw)
	uri, _ := str(e, "uri")
	mime, _ := str(e, "mimeType")
	if !apps.IsUIURI(uri) && apps.DialectOfMIME(mime) == apps.DialectNone {
		return
	}
	m := apps.ParseResource(raw)
	l.resourceMetaShape(f, "resources/list entry "+uri, m)
	st := l.appsState()
	if _, ok := st.listed[uri]; ok || len(st.listed) < maxAppViews {
		st.listed[uri] = m
	}
}

// resourceMetaShape reports a view resource's _meta.ui members of the
// wrong type and CSP entries that cannot stand as one source.
func (l *Linter) resourceMetaShape(f *mcp.Frame, what string, m apps.ResourceMeta) {
	problems := append([]string(nil), m.Malformed...)
	if bad := m.CSP.Rejected(); len(bad) > 0 {
		problems = append(problems, "CSP domains that are not one source each (hosts drop them): "+quoteList(bad))
	}
	if len(problems) > 0 {
		l.reportOnce("apps/meta-shape:"+what, "apps/meta-shape", fmt.Sprintf("The %s: %s.", what, strings.Join(problems, "; ")), f.Seq)
	}
}

// appReadFailed judges a resources/read of a view that was answered with
// an error.
func (l *Linter) appReadFailed(f *mcp.Frame, req *outRequest) {
	if l.apps == nil || req.uri == "" {
		return
	}
	ts := l.apps.templates[req.uri]
	if len(ts) == 0 {
		return
	}
	l.report("apps/template-unresolved", fmt.Sprintf("resources/read of %s, the view of tool %s, failed with error %d (%s).",
		req.uri, QuoteName(ts[0].tool), f.ErrorCode, f.ErrorMessage), f.Seq, f.ReplyTo)
}

// appRead judges what a resources/read returned for a view: that it is
// there, its MIME type for the dialect its tools ask, its size, and the
// static CSP scan of its HTML.
func (l *Linter) appRead(f *mcp.Frame, req *outRequest, contents []json.RawMessage) {
	var st *appsState
	if l.apps != nil {
		st = l.apps
	}
	found := false
	for _, c := range contents {
		item := object(c)
		uri, _ := str(item, "uri")
		if uri == req.uri {
			found = true
		}
		var ts []appTemplate
		if st != nil {
			ts = st.templates[uri]
		}
		mime, _ := str(item, "mimeType")
		if len(ts) == 0 && !apps.IsUIURI(uri) {
			continue
		}
		if len(ts) == 0 && apps.DialectOfMIME(mime) == apps.DialectNone && !strings.HasPrefix(mime, "text/html") {
			continue // a ui:// resource that is no view (data a view reads)
		}
		l.appMIME(f, uri, mime, ts)
		html, ok := viewHTML(item)
		if !ok {
			continue
		}
		of := ""
		if len(ts) > 0 {
			of = ", the view of tool " + QuoteName(ts[0].tool)
		}
		h := fnv.New64a()
		h.Write([]byte(html))
		key := fmt.Sprintf("%s\x00%x", uri, h.Sum64())
		if len(html) > apps.MaxHTMLBytes {
			l.reportOnce("apps/html-size:"+key, "apps/html-size", fmt.Sprintf("The HTML of %s%s is %d KiB, over %d KiB; Qwen Code refuses a view over 1 MiB.", uri, of, len(html)/1024, apps.MaxHTMLBytes/1024), f.Seq)
		}
		content := apps.ParseResource(c)
		l.resourceMetaShape(f, "resources/read content of "+uri, content)
		var listed apps.ResourceMeta
		if st != nil {
			listed = st.listed[uri]
		}
		l.appScan(f, key, uri, of, html, apps.Effective(listed, content))
	}
	if !found && req.uri != "" && st != nil && len(st.templates[req.uri]) > 0 {
		l.report("apps/template-unresolved", fmt.Sprintf("resources/read of %s, the view of tool %s, returned %d content items, none for that URI.",
			req.uri, QuoteName(st.templates[req.uri][0].tool), len(contents)), f.Seq, f.ReplyTo)
	}
}

// appMIME judges a view's MIME type against the dialects its tools ask
// for: an MCP Apps key wants text/html;profile=mcp-app; openai/outputTemplate
// alone wants text/html+skybridge (a URI that an MCP key names as well may
// be either: ChatGPT renders MCP Apps views too).
func (l *Linter) appMIME(f *mcp.Frame, uri, mime string, ts []appTemplate) {
	if len(ts) == 0 {
		return
	}
	var mcpTool, skyTool string
	for _, t := range ts {
		switch t.dialect {
		case apps.DialectMCPApps:
			if mcpTool == "" {
				mcpTool = t.tool
			}
		case apps.DialectSkybridge:
			if skyTool == "" {
				skyTool = t.tool
			}
		}
	}
	switch {
	case mcpTool != "" && mime != apps.MIMEType:
		l.reportOnce("apps/template-mime:"+uri+"\x00"+mime, "apps/template-mime", fmt.Sprintf("%s, the view of tool %s (_meta.ui.resourceUri), has MIME type %q, not %q.", uri, QuoteName(mcpTool), mime, apps.MIMEType), f.Seq)
	case mcpTool == "" && skyTool != "" && mime != apps.MIMETypeSkybridge:
		l.reportOnce("apps/template-mime:"+uri+"\x00"+mime, "apps/template-mime", fmt.Sprintf("%s, the widget of tool %s (openai/outputTemplate), has MIME type %q, not %q.", uri, QuoteName(skyTool), mime, apps.MIMETypeSkybridge), f.Seq)
	}
}

// maxScanListed is how many blocked URLs one finding names.
const maxScanListed = 6

// maxScanBytes bounds the HTML the scan reads: far above any view a host
// accepts, so only a hostile one is cut.
const maxScanBytes = 16 << 20

// appScan reports the URLs the view's HTML names that its CSP does not
// allow.
func (l *Linter) appScan(f *mcp.Frame, key, uri, of, html string, m apps.ResourceMeta) {
	var blocked []string
	n := 0
	cut := ""
	if len(html) > maxScanBytes {
		html, cut = html[:maxScanBytes], fmt.Sprintf(" (its first %d MiB)", maxScanBytes>>20)
	}
	for _, r := range apps.ScanHTML(html) {
		if m.CSP.Allows(r.Directive, r.URL) {
			continue
		}
		n++
		if len(blocked) == maxScanListed {
			continue
		}
		fix := "nothing allows it: hosts block plugins"
		if field := r.Field(); field != "" {
			fix = "add " + r.Origin() + " to " + field
		}
		blocked = append(blocked, fmt.Sprintf("%s %s (%s; %s)", r.Where, r.URL, r.Directive, fix))
	}
	if n == 0 {
		return
	}
	if n > len(blocked) {
		blocked = append(blocked, fmt.Sprintf("and %d more", n-len(blocked)))
	}
	declared := "its declared csp"
	if m.CSP == nil {
		declared = "the default CSP (no csp declared)"
	}
	l.reportOnce("apps/csp-static-scan:"+key, "apps/csp-static-scan", fmt.Sprintf("Static scan of %s%s%s: %d URL(s) that %s does not allow: %s.", uri, of, cut, n, declared, strings.Join(blocked, "; ")), f.Seq)
}

// viewHTML is a content item's text, or its blob decoded, when it is
// HTML (or of no declared type).
func viewHTML(item map[string]json.RawMessage) (string, bool) {
	if s, ok := str(item, "text"); ok {
		return s, true
	}
	if b, ok := str(item, "blob"); ok {
		raw, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			return "", false
		}
		return string(raw), true
	}
	return "", false
}
