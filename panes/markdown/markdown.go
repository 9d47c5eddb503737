// Package markdown renders a server's Markdown (tool and prompt
// descriptions, prompt messages, text/markdown resources, text results)
// for the terminal: goldmark parses it as mcp/lib/mdparse sets it up
// (CommonMark and GitHub's tables, strikethrough and task lists) and
// this package lays the tree out at a width in the colours of mcpscope's
// one Theme, wrapping with x/ansi's widths (wide characters, emoji).
// Fenced code is coloured by the caller's Highlighter, if it sets one.
//
// Safety is in two steps. The source goes through termsafe.Block first,
// so a server's ESC, OSC or CSI is visible text before goldmark sees it,
// and every piece of text the tree yields is made safe again (a
// character reference such as &#27; names a control). The only escape
// sequences in the output are the SGR ones written here (colours, bold,
// italic, underline, strikethrough) and a Highlighter's SGR: a link is
// drawn as its text and its URL, both as text, never as an OSC 8
// hyperlink, and raw HTML is shown as text.
//
// Rendering is bounded ([MaxBytes]: past it a caller shows the source) and
// cached per (text, width, theme), so a view redrawn every frame renders
// each text once.
package markdown

import (
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// MaxBytes is the largest text rendered: rendering takes time in
// proportion to the text (a 64 KB list or table, 15 to 30 ms on a busy
// machine), and a server chooses the text. Past it the caller shows the
// source with a note (TooBigNote).
const MaxBytes = 128 << 10

// SyncBytes is the largest text Get renders on the caller's goroutine (a
// millisecond or two: a tool's description); a bigger one is rendered by
// the Cmd Request gives, and shown as source until it is ready.
const SyncBytes = 4 << 10

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
	// Source: the text is too big to render; show the source.
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
// line at most width cells wide (a word, a code line or a table cell too
// long for it goes on below), and caches it. A text past
// MaxBytes comes back as ok false: the caller shows the source. It
// blocks: the UI calls Get, and Request's Cmd.
func Render(t *themes.Theme, src string, width int) (lines []string, ok bool) {
	if TooBig(src) {
		return nil, false
	}
	k := key(t, src, width)
	if l, hit := cache.get(k); hit {
		return l, l != nil
	}
	lines = render(t, src, k.width)
	cache.put(k, lines)
	return lines, lines != nil
}

func render(t *themes.Theme, src string, width int) []string {
	hook.Lock()
	hl := hook.h
	hook.Unlock()
	lines := tidy(lay(t, hl, termsafe.Block(src), width))
	if lines == nil {
		// An empty text renders as nothing, not as "not rendered".
		lines = []string{}
	}
	return lines
}

// Highlighter colours a fenced code block's code, named lang by its
// fence ("" when it names none), in theme t: one string a line, text and
// SGR sequences (anything else is dropped); nil to leave the code in the
// theme's code colour. It is not asked for the plain theme.
type Highlighter func(t *themes.Theme, lang, code string) []string

// hook is the Highlighter SetHighlighter set.
var hook struct {
	sync.Mutex
	h Highlighter
}

// SetHighlighter sets what fenced code blocks are highlighted with; nil
// (the default) shows code in the theme's code colour. The renderings
// cached so far are dropped.
func SetHighlighter(h Highlighter) {
	hook.Lock()
	hook.h = h
	hook.Unlock()
	cache.Lock()
	cache.m, cache.order, cache.bytes = map[cacheKey][]string{}, nil, 0
	cache.Unlock()
}

// tidy drops the blank lines around a document.
func tidy(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
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
