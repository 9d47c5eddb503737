// Package markdown renders a server's Markdown (tool and prompt
// descriptions, prompt messages, text/markdown resources, text results)
// for the terminal: glamour lays it out at a width in the colours of
// mcpscope's one Theme, code blocks highlighted by chroma in the theme's
// chroma style, and nothing of the server's reaches the terminal as a
// control sequence.
//
// Safety is in two steps. The source goes through termsafe.Block first,
// so a server's ESC, OSC or CSI is visible text before glamour sees it;
// then the output keeps only the SGR sequences glamour itself writes
// (colours, bold, italic, underline): its OSC 8 hyperlinks are dropped,
// so a link is drawn as its text and its URL, both as text.
//
// Rendering is bounded ([MaxBytes]: past it a caller shows the source) and
// cached per (text, width, theme), so a view redrawn every frame renders
// each text once.
package markdown

import (
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// MaxBytes is the largest text rendered: glamour is slow (a 16 KB list
// takes most of a second on a busy machine, and it grows faster than the
// text) and a server chooses the text. Past it the caller shows the
// source with a note (TooBigNote).
const MaxBytes = 32 << 10

// SyncBytes is the largest text Get renders on the caller's goroutine (a
// few milliseconds: a tool's description); a bigger one is rendered by
// the Cmd Request gives, and shown as source until it is ready.
const SyncBytes = 1 << 10

// TooBig reports whether src is past MaxBytes and so shown as source.
func TooBig(src string) bool { return len(src) > MaxBytes }

// TooBigNote is the one line shown above a Markdown text too big to render.
func TooBigNote(n int) string {
	return fmt.Sprintf("Markdown of %d KB shown as source (rendered up to %d KB)", (n+1023)/1024, MaxBytes/1024)
}

// PendingNote is the one line shown above a Markdown text's source while
// it is being rendered.
const PendingNote = "rendering Markdown…"

// IsMIME reports whether a MIME type names Markdown (text/markdown, with
// or without parameters, or the older text/x-markdown).
func IsMIME(mime string) bool {
	m := strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	return m == "text/markdown" || m == "text/x-markdown"
}

// Status says what Get has for a text.
type Status uint8

const (
	// Rendered: the lines are the rendering.
	Rendered Status = iota
	// Pending: the text is being rendered, or must be (Request); show
	// the source meanwhile.
	Pending
	// Source: the text is too big, or glamour failed on it; show the
	// source.
	Source
)

// Get is src laid out at width cells in theme t, one string a line, if
// it is ready: from the cache, or rendered here when it is small
// (SyncBytes). Otherwise the status says why not.
func Get(t *themes.Theme, src string, width int) ([]string, Status) {
	if TooBig(src) {
		return nil, Source
	}
	k := key(t, src, width)
	if l, hit := cache.get(k); hit {
		if l == nil {
			return nil, Source
		}
		return l, Rendered
	}
	if len(src) > SyncBytes {
		return nil, Pending
	}
	if l, ok := Render(t, src, width); ok {
		return l, Rendered
	}
	return nil, Source
}

// RenderedMsg says a rendering Request asked for is ready: the views that
// showed its source lay the text out again.
type RenderedMsg struct{}

// inFlight are the renderings Request started and that are not done.
var inFlight = struct {
	sync.Mutex
	m map[cacheKey]bool
}{m: map[cacheKey]bool{}}

// Request is a Cmd that renders src off the UI goroutine and answers
// RenderedMsg; nil when it is ready, too big, or already being rendered.
func Request(t *themes.Theme, src string, width int) tea.Cmd {
	if TooBig(src) {
		return nil
	}
	k := key(t, src, width)
	if _, hit := cache.get(k); hit {
		return nil
	}
	inFlight.Lock()
	defer inFlight.Unlock()
	if inFlight.m[k] {
		return nil
	}
	inFlight.m[k] = true
	return func() tea.Msg {
		Render(t, src, width)
		inFlight.Lock()
		delete(inFlight.m, k)
		inFlight.Unlock()
		return RenderedMsg{}
	}
}

func key(t *themes.Theme, src string, width int) cacheKey {
	return cacheKey{text: src, width: max(width, 8), theme: t}
}

// Render lays src out at width cells in theme t, one string a line, each
// line at most width cells wide (a table or a code block's long line is
// cut by the caller's view, as any line), and caches it. A text past
// MaxBytes, or one glamour fails on, comes back as ok false: the caller
// shows the source. It blocks: the UI calls Get, and Request's Cmd.
func Render(t *themes.Theme, src string, width int) (lines []string, ok bool) {
	if TooBig(src) {
		return nil, false
	}
	k := key(t, src, width)
	if l, hit := cache.get(k); hit {
		return l, l != nil
	}
	lines, err := render(t, src, k.width)
	if err != nil {
		lines = nil
	}
	cache.put(k, lines)
	return lines, lines != nil
}

// mu serialises rendering: chroma's style registry, which glamour looks
// the code blocks' style up in, is a plain map, and a theme's style is
// registered in it on first use.
var mu sync.Mutex

// registered names the chroma style registered for each palette (a
// theme made again from the same palette shares it).
var registered = map[string]string{}

func render(t *themes.Theme, src string, width int) ([]string, error) {
	mu.Lock()
	defer mu.Unlock()
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(styleConfig(t, chromaName(t))),
		glamour.WithWordWrap(width),
		glamour.WithChromaFormatter("terminal16m"),
		glamour.WithInlineTableLinks(true),
	)
	if err != nil {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	out, err := r.Render(termsafe.Block(src))
	if err != nil {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	return tidy(onlySGR(out)), nil
}

// chromaName registers the theme's chroma style under a name of its own
// (mu held) and returns it; "" for the plain theme, whose code glamour
// then writes plain.
func chromaName(t *themes.Theme) string {
	cs := t.Chroma()
	if cs == nil {
		return ""
	}
	pk := fmt.Sprintf("%v", t.Palette)
	if name, ok := registered[pk]; ok {
		return name
	}
	name := fmt.Sprintf("mcpscope-markdown-%d", len(registered))
	st, err := cs.Builder().Build()
	if err != nil {
		return ""
	}
	st.Name = name
	styles.Register(st)
	registered[pk] = name
	return name
}

// sgr is a Select Graphic Rendition sequence: colours and attributes.
var sgr = regexp.MustCompile(`^\x1b\[[0-9;:]*m$`)

// onlySGR drops every escape sequence and control character from s but
// SGR sequences and line feeds: glamour's OSC 8 hyperlinks go, and
// whatever else a future glamour might write. It also drops what styles
// nothing (glamour writes many empty styled runs) and the spaces glamour
// pads each line to the width with, so a line costs what it shows, and
// ends each styled line with a reset.
func onlySGR(s string) string {
	var out, line strings.Builder
	out.Grow(len(s))
	var state byte
	var pending []string // SGR sequences since the last character
	var tail []string    // spaces and the SGRs styling them since the last other character
	styled := false      // line is left styled
	isReset := func(q string) bool { return q == "\x1b[m" || q == "\x1b[0m" }
	endLine := func() {
		out.WriteString(line.String())
		if styled {
			out.WriteString("\x1b[m")
		}
		line.Reset()
		pending, tail, styled = pending[:0], tail[:0], false
	}
	for len(s) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(s, state, nil)
		state = newState
		s = s[n:]
		switch {
		case seq == "\n":
			endLine()
			out.WriteByte('\n')
		case sgr.MatchString(seq):
			if isReset(seq) {
				pending = pending[:0]
			}
			pending = append(pending, seq)
		case width > 0 || len(seq) == 1 && seq[0] >= 0x20 && seq[0] != 0x7f:
			tail = append(tail, pending...)
			pending = pending[:0]
			if seq == " " {
				tail = append(tail, seq)
				continue
			}
			for _, q := range tail {
				if ansi.HasCsiPrefix(q) {
					if isReset(q) && !styled {
						continue
					}
					styled = !isReset(q)
				}
				line.WriteString(q)
			}
			tail = tail[:0]
			line.WriteString(seq)
		}
	}
	endLine()
	return out.String()
}

// tidy splits glamour's output into lines, without the blank lines it
// puts around a document.
func tidy(out string) []string {
	lines := strings.Split(out, "\n")
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// styleConfig is glamour's style built from t's palette: headings in the
// key colour, links in the outgoing one, inline code as a string, the
// document without glamour's margin (the panes have their own). A nil
// colour (NO_COLOR) leaves the terminal's; bold, italic and underline
// still mark what colour would.
func styleConfig(t *themes.Theme, chroma string) gansi.StyleConfig {
	p := t.Palette
	c := func(col color.Color) *string {
		if col == nil {
			return nil
		}
		r, g, b, _ := col.RGBA()
		s := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
		return &s
	}
	yes, no := true, false
	zero, one := uint(0), uint(1)
	quote := "│ "
	bar, cross, dash := "│", "┼", "─"
	s := gansi.StyleConfig{
		// Prose keeps the terminal's own colour, as the rest of the
		// details do; what Markdown marks up gets the palette's.
		Document: gansi.StyleBlock{Margin: &zero},
		BlockQuote: gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: c(p.Subtle), Italic: &yes},
			Indent: &one, IndentToken: &quote},
		Paragraph: gansi.StyleBlock{},
		List:      gansi.StyleList{LevelIndent: 2},
		Heading:   gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{BlockSuffix: "\n", Color: c(p.JSONKey), Bold: &yes}},
		H1:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "# ", Color: c(p.Primary), Underline: &yes}},
		H2:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "## "}},
		H3:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "### "}},
		H4:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "#### "}},
		H5:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "##### "}},
		H6:        gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Prefix: "###### ", Bold: &no}},

		Strikethrough:  gansi.StylePrimitive{CrossedOut: &yes},
		Emph:           gansi.StylePrimitive{Italic: &yes},
		Strong:         gansi.StylePrimitive{Bold: &yes},
		HorizontalRule: gansi.StylePrimitive{Color: c(p.Muted), Format: "\n────────\n"},
		Item:           gansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration:    gansi.StylePrimitive{BlockPrefix: ". "},
		Task:           gansi.StyleTask{Ticked: "[✓] ", Unticked: "[ ] "},
		Link:           gansi.StylePrimitive{Color: c(p.Outgoing), Underline: &yes},
		LinkText:       gansi.StylePrimitive{Color: c(p.Primary), Bold: &yes},
		Image:          gansi.StylePrimitive{Color: c(p.Outgoing), Underline: &yes},
		ImageText:      gansi.StylePrimitive{Color: c(p.Subtle), Format: "image: {{.text}} →"},
		Code:           gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: c(p.JSONString)}},
		CodeBlock: gansi.StyleCodeBlock{StyleBlock: gansi.StyleBlock{
			StylePrimitive: gansi.StylePrimitive{Color: c(p.Text)}, Margin: &one}, Theme: chroma},
		Table: gansi.StyleTable{StyleBlock: gansi.StyleBlock{StylePrimitive: gansi.StylePrimitive{Color: c(p.Text)}},
			CenterSeparator: &cross, ColumnSeparator: &bar, RowSeparator: &dash},
		DefinitionDescription: gansi.StylePrimitive{BlockPrefix: "\n→ "},
	}
	if t.Plain {
		// Without colour, inline code keeps its backticks to stand out.
		s.Code.Prefix, s.Code.Suffix = "`", "`"
	}
	return s
}

// cacheKey is what a rendering depends on.
type cacheKey struct {
	text  string
	width int
	theme *themes.Theme
}

// renderCache keeps the last renderings, bounded by count and by the
// bytes of their sources and lines: a view asks for the same text every
// frame.
type renderCache struct {
	sync.Mutex
	m     map[cacheKey][]string
	order []cacheKey
	bytes int
}

const (
	cacheEntries = 64
	cacheBytes   = 8 << 20
)

// cost is what an entry holds on to.
func cost(k cacheKey, lines []string) int {
	n := len(k.text)
	for _, l := range lines {
		n += len(l)
	}
	return n
}

var cache = &renderCache{m: map[cacheKey][]string{}}

func (c *renderCache) get(k cacheKey) ([]string, bool) {
	c.Lock()
	defer c.Unlock()
	l, ok := c.m[k]
	return l, ok
}

func (c *renderCache) put(k cacheKey, lines []string) {
	c.Lock()
	defer c.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	n := cost(k, lines)
	for len(c.order) > 0 && (len(c.order) >= cacheEntries || c.bytes+n > cacheBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= cost(old, c.m[old])
		delete(c.m, old)
	}
	c.m[k] = lines
	c.order = append(c.order, k)
	c.bytes += n
}
