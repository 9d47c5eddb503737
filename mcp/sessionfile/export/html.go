package export

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
)

// The page loads nothing: no script, font, image or style from anywhere.
// The Content-Security-Policy says so to the browser as well, so that even
// a server string that slipped through escaping could not fetch anything.
const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcpscope session: {{.ServerName}}</title>
<style>
:root { color-scheme: light dark; --fg:#1d1f21; --bg:#fff; --mute:#666; --line:#ddd; --err:#b00020; --warn:#8a5a00; --hint:#2a5db0; --ok:#1b7f3b; --code:#f5f5f5; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6e6e6; --bg:#15171a; --mute:#9aa0a6; --line:#333; --err:#ff6b81; --warn:#f0b44c; --hint:#7fb0ff; --ok:#5fd38d; --code:#1f2226; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 2em auto; max-width: 70em; padding: 0 1em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { font-size: 1.15em; border-bottom: 1px solid var(--line); padding-bottom: .2em; margin-top: 2em; }
.mute { color: var(--mute); } code, pre { font: 12.5px/1.4 ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
pre { background: var(--code); padding: .6em .8em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: .3em 0; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .2em .6em .2em 0; vertical-align: top; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; } dl.kv dt { color: var(--mute); } dl.kv dd { margin: 0; }
details { border-bottom: 1px solid var(--line); padding: .25em 0; } summary { cursor: pointer; list-style-position: outside; }
.t { color: var(--mute); display: inline-block; min-width: 6.5em; font-variant-numeric: tabular-nums; }
.dir { display: inline-block; width: 1.2em; } .lat { color: var(--mute); }
.sev, .bad { font-weight: 600; } .error, .bad { color: var(--err); } .warning { color: var(--warn); } .hint { color: var(--hint); } .good { color: var(--ok); }
.diag { border-left: 3px solid var(--line); padding: .2em .8em; margin: .6em 0; } .diag.error { border-color: var(--err); } .diag.warning { border-color: var(--warn); } .diag.hint { border-color: var(--hint); }
.diag p { margin: .2em 0; color: var(--fg); }
.md { border-left: 3px solid var(--line); padding: 0 .8em; margin: .3em 0; } .md .url { color: var(--mute); }
img.shot { display: block; max-width: 100%; max-height: 40em; margin: .3em 0 .6em; border: 1px solid var(--line); }
footer { margin-top: 3em; color: var(--mute); font-size: .9em; }
@media print {
  body { max-width: none; margin: 0; font-size: 11px; } pre { white-space: pre-wrap; }
  details > *:not(summary) { display: block; } details { break-inside: avoid; }
  summary::marker, summary::-webkit-details-marker { content: ""; display: none; }
}
</style>
</head>
<body>
<header>
<h1 id="server">{{.ServerName}}</h1>
<div class="mute">{{with .Handshake}}{{if .ServerInfo.Title}}{{.ServerInfo.Title}} · {{end}}{{.Era}} era · protocol {{.ProtocolVersion}}{{end}} · recorded by mcpscope {{.Header.Mcpscope}} on {{.Recorded}} · {{.Source}}</div>
</header>

<h2 id="summary">Summary</h2>
<dl class="kv">
<dt>Target</dt><dd><code>{{.Header.Target}}</code></dd>
{{if .Header.Command}}<dt>Command</dt><dd><code>{{join .Header.Command}}</code></dd>{{end}}
{{if .Header.Env}}<dt>Environment</dt><dd><code>{{range $k, $v := .Header.Env}}{{$k}}={{$v}} {{end}}</code></dd>{{end}}
<dt>Frames</dt><dd>{{.FrameCount}} ({{len .Timeline}} exchanges and lone frames)</dd>
<dt>Diagnostics</dt><dd>{{.DiagSummary}}</dd>
<dt>Outcome</dt><dd>{{.Outcome}}</dd>
{{if .Conversations}}<dt>Client sessions</dt><dd>{{len .Conversations}}, each its own conversation below<ul>{{range .Conversations}}<li>{{.}}</li>{{end}}</ul></dd>{{end}}
</dl>

<h2 id="diagnostics">Diagnostics</h2>
{{if not .Diagnostics}}<p class="good">The protocol doctor found nothing wrong.</p>{{end}}
{{range .Diagnostics}}<div class="diag {{.Severity}}">
<div><span class="sev {{.Severity}}">{{.Severity}}</span> <code>{{.Rule}}</code>{{if .Frames}} <span class="mute">frames {{frames .Frames}}</span>{{end}}</div>
<p>{{.Message}}</p>
{{if .Why}}<p><span class="mute">Why it matters:</span> {{.Why}}</p>{{end}}
{{if .Fix}}<p><span class="mute">Fix:</span> {{.Fix}}</p>{{end}}
{{if .SpecRef}}<p class="mute">{{.SpecRef}}</p>{{end}}
</div>{{end}}

<h2 id="handshake">Handshake{{.FirstOf}}</h2>
{{with .Handshake}}<dl class="kv">
<dt>Era</dt><dd>{{.Era}}</dd>
<dt>Offered</dt><dd>{{.OfferedVersion}}</dd>
<dt>Agreed</dt><dd>{{.ProtocolVersion}}</dd>
<dt>Client</dt><dd>{{.ClientInfo.Name}} {{.ClientInfo.Version}}</dd>
<dt>Server</dt><dd>{{.ServerInfo.Name}} {{.ServerInfo.Version}}</dd>
<dt>Took</dt><dd>{{dur .Duration}}</dd>
</dl>
<h3>Server capabilities</h3>
<pre>{{json .ServerCapabilities}}</pre>
<h3>Client capabilities</h3>
<pre>{{json .ClientCapabilities}}</pre>
{{if .Instructions}}<h3>Instructions</h3><pre>{{.Instructions}}</pre>{{end}}
{{else}}<p class="bad">The session has no completed handshake.</p>{{end}}

<h2 id="timeline">Timeline</h2>
<p class="mute">Each line opens to the exact JSON that crossed the wire. → sent by the client, ← sent by the server.</p>
{{range .Rows}}{{with .Heading}}<h3>{{.}}</h3>
{{end}}<details{{if .Failed}} class="failed"{{end}}>
<summary><span class="t">{{.At}}</span><span class="dir">{{.Arrow}}</span> {{.Label}}{{if .Status}} <span class="{{.StatusClass}}">{{.Status}}</span>{{end}}{{if .Latency}} <span class="lat">{{.Latency}}</span>{{end}}</summary>
{{range .Parts}}<div class="mute">{{.Title}}</div>{{if .HTML}}<div class="md">{{.HTML}}</div>{{else}}<pre>{{.Body}}</pre>{{end}}{{range .Images}}{{if .Src}}<img class="shot" src="{{.Src}}" alt="{{.MIME}} image, {{.Size}} bytes">{{else}}<div class="mute">{{.Note}}</div>{{end}}{{end}}{{end}}
</details>
{{end}}

{{if .App}}<h2 id="views">Tool views</h2>
<pre>{{range .App}}{{.Summary}}{{if .Err}}: {{.Err}}{{end}}
{{end}}</pre>{{end}}

{{if .Stderr}}<h2 id="stderr">Server stderr</h2>
<pre>{{range .Stderr}}{{.}}
{{end}}</pre>{{end}}

<footer>Exported by mcpscope from a session file. Environment values and credentials are redacted.</footer>
</body>
</html>
`

// htmlTemplate is parsed on first use: every mcpscope process links this
// package, and parsing the page at init would cost every start, whatever
// the command.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"join":   func(s []string) string { return strings.Join(s, " ") },
		"json":   func(raw []byte) string { return prettyRaw(raw) },
		"dur":    func(d time.Duration) string { return d.Round(time.Microsecond).String() },
		"frames": func(seqs []int64) string { return joinInts(seqs) },
	}).Parse(htmlPage))
})

func joinInts(seqs []int64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = fmt.Sprintf("#%d", s)
	}
	return strings.Join(parts, ", ")
}

// row is one timeline line as the page shows it.
type row struct {
	// Heading names the client session the row begins (a capture of
	// several).
	Heading                                        string
	At, Arrow, Label, Status, StatusClass, Latency string
	Failed                                         bool
	Parts                                          []part
}

// part is a titled body under a row: a frame's JSON (Body) with the
// images the frame carries (Images, images.go), or a Markdown text in
// it rendered (HTML, html_markdown.go).
type part struct {
	Title, Body string
	HTML        template.HTML
	Images      []frameImage
}

type htmlData struct {
	*Session
	Recorded    string
	FrameCount  int
	DiagSummary string
	Outcome     string
	FirstOf     string // whose handshake it is, of several client sessions
	Rows        []row
}

// HTML writes the session as one self-contained page.
func HTML(w io.Writer, s *Session) error {
	d := htmlData{Session: s, Recorded: s.Header.Time.UTC().Format("2006-01-02 15:04:05 UTC"),
		FrameCount: s.frameCount, DiagSummary: diagSummary(s.Diagnostics), Outcome: outcome(s), FirstOf: s.firstOf()}
	budget := maxInlineImages
	for _, it := range s.Timeline {
		r := s.row(it)
		if c := s.Heading(it); c != nil {
			r.Heading = c.String()
		}
		for _, p := range r.Parts {
			inline(p.Images, &budget)
		}
		d.Rows = append(d.Rows, r)
	}
	return htmlTemplate().Execute(w, d)
}

func (s *Session) row(it *Item) row {
	f := it.First()
	r := row{At: s.offset(f.Time), Arrow: f.Dir.Arrow(), Failed: it.Failed()}
	switch {
	case it.Request != nil:
		r.Label = it.Label()
		switch it.Role {
		case reading.Probe:
			r.Label = "probe " + r.Label
		case reading.Handshake:
			r.Label = "handshake " + r.Label
		case reading.Retry:
			r.Label += fmt.Sprintf(" (sent again: frame %d)", it.RetryOf.Request.Seq)
		}
		r.Parts = append(r.Parts, part{Title: fmt.Sprintf("request, frame %d, %s", f.Seq, plural.S(f.Size(), "byte")), Body: pretty(f.Raw)})
		switch {
		case it.Response != nil:
			resp := it.Response
			r.Parts = append(r.Parts, part{Title: fmt.Sprintf("answer, frame %d, %s", resp.Seq, plural.S(resp.Size(), "byte")), Body: pretty(resp.Raw), Images: imagesOf(resp.Raw)})
			r.Parts = append(r.Parts, markdownParts(resp.Raw)...)
			if resp.Latency > 0 {
				r.Latency = resp.Latency.Round(time.Microsecond).String()
			}
			switch {
			case it.Role == reading.Probe && resp.Kind == mcp.KindErrorResponse:
				r.Status, r.StatusClass = fmt.Sprintf("probe refused: %d %s", resp.ErrorCode, resp.ErrorMessage), "mute"
			case resp.Kind == mcp.KindErrorResponse:
				r.Status, r.StatusClass = fmt.Sprintf("error %d %s", resp.ErrorCode, resp.ErrorMessage), "bad"
			case r.Failed:
				r.Status, r.StatusClass = "isError", "bad"
			default:
				r.Status, r.StatusClass = "ok", "good"
			}
		case it.Local != nil:
			r.Status, r.StatusClass = "no answer: "+it.Local.Kind.String(), "bad"
		default:
			r.Status, r.StatusClass = "no answer recorded", "mute"
		}
	default:
		r.Label = f.Label()
		if f.Kind == mcp.KindInvalid {
			r.Label = "invalid frame"
			r.Status, r.StatusClass = f.Problem, "bad"
		}
		r.Parts = append(r.Parts, part{Title: fmt.Sprintf("%s, frame %d, %s", f.Kind, f.Seq, plural.S(f.Size(), "byte")), Body: pretty(f.Raw)})
	}
	return r
}

func (s *Session) offset(t time.Time) string {
	return fmt.Sprintf("+%.3fs", t.Sub(s.Start).Seconds())
}

func diagSummary(ds []*mcp.Diagnostic) string {
	n := map[mcp.Severity]int{}
	for _, d := range ds {
		n[d.Severity]++
	}
	if len(ds) == 0 {
		return "none"
	}
	return plural.S(n[mcp.SeverityError], "error") + ", " + plural.S(n[mcp.SeverityWarning], "warning") + ", " + plural.S(n[mcp.SeverityHint], "hint")
}

// outcome is the session's outcome in a line: its requests and how it
// ended.
func outcome(s *Session) string {
	if s.Cut != "" {
		return s.Outcome.String() + " (incomplete: " + s.Cut + ")"
	}
	return s.Outcome.String()
}
