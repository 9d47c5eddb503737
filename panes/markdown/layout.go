package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp/lib/mdparse"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// sgr is one Select Graphic Rendition sequence (colours and attributes);
// sgrAll finds them in a line.
var (
	sgr    = regexp.MustCompile(`^\x1b\[[0-9;:]*m$`)
	sgrAll = regexp.MustCompile(`\x1b\[[0-9;:]*m`)
)

// markdownParser is goldmark's parser as mdparse sets it up, made on
// first use. It is safe for concurrent use.
var markdownParser = sync.OnceValue(func() parser.Parser { return mdparse.New().Parser() })

// styles are the theme's Markdown styles, read once per rendering.
type styles struct {
	h1, heading, code, link, url, quote, rule, head, task, image, html style
	italic, bold, strike                                               style
}

func stylesOf(t *themes.Theme) styles {
	m := t.Markdown
	return styles{h1: styleOf(m.Heading1), heading: styleOf(m.Heading), code: styleOf(m.Code),
		link: styleOf(m.Link), url: styleOf(m.URL), quote: styleOf(m.Quote), rule: styleOf(m.Rule),
		head: styleOf(m.TableHead), task: styleOf(m.Task), image: styleOf(m.Image), html: styleOf(m.HTML),
		italic: style{italic: true}, bold: style{bold: true}, strike: style{strike: true}}
}

// layout walks goldmark's tree of a text and lays it out for the
// terminal.
type layout struct {
	t     *themes.Theme
	src   []byte
	st    styles
	hl    Highlighter
	depth int // of lists, for the bullets
	nest  int // of lists and quotes
}

// maxNest is the deepest lists and quotes are drawn nested; deeper ones
// are drawn flat, their content under their parent's. Each level
// prefixes every line of what it holds, so a server's thousands of
// ">" would cost their square.
const maxNest = 16

// minNested is the narrowest a nested list or quote's content is drawn;
// nested deeper, it is drawn flat, rather than a character a line.
const minNested = 12

// lay renders src (already through termsafe.Block) at width.
func lay(t *themes.Theme, hl Highlighter, src string, width int) []string {
	b := []byte(mdparse.CapNesting(src))
	doc := markdownParser().Parse(text.NewReader(b), parser.WithContext(parser.NewContext()))
	l := &layout{t: t, src: b, st: stylesOf(t), hl: hl}
	return l.blocks(doc, width, style{}, false)
}

// blocks lays out n's children one under the other, a blank line
// between them unless tight (a tight list's item).
func (l *layout) blocks(n ast.Node, width int, base style, tight bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := l.block(c, width, base)
		if len(b) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, b...)
	}
	return out
}

func (l *layout) block(n ast.Node, width int, base style) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return l.paragraph(n, width, base)
	case *ast.Heading:
		st := l.st.heading
		if n.Level == 1 {
			st = l.st.h1
		}
		st = st.over(base)
		w := newWrapper(width)
		w.text(strings.Repeat("#", n.Level)+" ", st)
		l.inlines(w, n, st)
		return strs(w.finish())
	case *ast.ThematicBreak:
		return []string{line{pieces: []piece{{strings.Repeat("─", width), l.st.rule}}}.String()}
	case *ast.FencedCodeBlock:
		lang := ""
		if n.Info != nil {
			lang = termsafe.String(string(n.Language(l.src)))
		}
		return l.code(lang, linesOf(n, l.src), width, true)
	case *ast.CodeBlock:
		return l.code("", linesOf(n, l.src), width, false)
	case *ast.HTMLBlock:
		s := linesOf(n, l.src)
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(l.src))
		}
		return strs(preformatted(strings.TrimRight(s, "\n"), l.st.html.over(base), width))
	case *ast.Blockquote:
		if l.nest >= maxNest || width-2 < minNested {
			return l.blocks(n, width, base, false)
		}
		l.nest++
		defer func() { l.nest-- }()
		bar := line{pieces: []piece{{"│", l.st.quote}}}.String()
		inner := l.blocks(n, max(width-2, 1), l.st.quote.over(base), false)
		for i, s := range inner {
			if s == "" {
				inner[i] = bar
			} else {
				inner[i] = bar + " " + s
			}
		}
		return inner
	case *ast.List:
		return l.list(n, width, base)
	case *east.Table:
		return l.table(n, width, base)
	}
	if n.HasChildren() && n.FirstChild().Type() == ast.TypeBlock {
		return l.blocks(n, width, base, false)
	}
	return l.paragraph(n, width, base)
}

func (l *layout) paragraph(n ast.Node, width int, base style) []string {
	if !n.HasChildren() {
		// What is left of a paragraph of link reference definitions.
		return nil
	}
	w := newWrapper(width)
	l.inlines(w, n, base)
	return strs(w.finish())
}

// linesOf is a block's source lines (code, raw HTML) as one string.
func linesOf(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// bullets are the list markers by depth.
var bullets = []string{"•", "◦", "▪"}

func (l *layout) list(n *ast.List, width int, base style) []string {
	mw := 2 // "• "
	if n.IsOrdered() {
		last := n.Start + n.ChildCount() - 1
		mw = len(strconv.Itoa(max(last, n.Start))) + 2
	}
	if l.nest >= maxNest || width-mw < minNested {
		var out []string
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			out = append(out, l.blocks(item, width, base, n.IsTight)...)
		}
		return out
	}
	l.nest++
	l.depth++
	defer func() { l.nest--; l.depth-- }()
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := bullets[(l.depth-1)%len(bullets)] + " "
		if n.IsOrdered() {
			marker = strconv.Itoa(n.Start+i) + string(n.Marker)
			marker += strings.Repeat(" ", max(mw-len(marker), 1))
		}
		i++
		inner := l.blocks(item, max(width-mw, 1), base, n.IsTight)
		if len(out) > 0 && !n.IsTight {
			out = append(out, "")
		}
		if len(inner) == 0 {
			out = append(out, strings.TrimRight(marker, " "))
			continue
		}
		pad := strings.Repeat(" ", mw)
		for j, s := range inner {
			switch {
			case j == 0:
				out = append(out, marker+s)
			case s == "":
				out = append(out, "")
			default:
				out = append(out, pad+s)
			}
		}
	}
	return out
}

// code lays out a code block: highlighted by the Highlighter when it is
// fenced and there is one (and it gives lines), else in the theme's code
// colour; indented,
// and its long lines cut at the width and going on below.
func (l *layout) code(lang, code string, width int, fenced bool) []string {
	code = strings.TrimSuffix(code, "\n")
	const indent = "  "
	cw := max(width-len(indent), 1)
	var out []string
	if fenced && l.hl != nil && !l.t.Plain {
		out = styledLines(l.hl(l.t, lang, code), cw)
	}
	if out == nil {
		out = strs(preformatted(code, l.st.code, cw))
	}
	for i, s := range out {
		if s != "" {
			out[i] = indent + s
		}
	}
	return out
}

// inlines adds n's inline children to w, in st.
func (l *layout) inlines(w *wrapper, n ast.Node, st style) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		l.inline(w, c, st)
	}
}

func (l *layout) inline(w *wrapper, n ast.Node, st style) {
	switch n := n.(type) {
	case *ast.Text:
		if n.IsRaw() {
			w.text(termsafe.String(string(n.Segment.Value(l.src))), st)
		} else {
			l.prose(w, decode(n.Segment.Value(l.src)), st)
		}
		switch {
		case n.HardLineBreak():
			w.breakLine()
		case n.SoftLineBreak():
			w.spaceIn(st)
		}
	case *ast.String:
		if n.IsRaw() || n.IsCode() {
			w.text(termsafe.String(string(n.Value)), st)
		} else {
			w.text(decode(n.Value), st)
		}
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(l.src))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		s := termsafe.String(strings.ReplaceAll(b.String(), "\n", " "))
		if l.t.Plain {
			// Without colour, inline code keeps its backticks to
			// stand out.
			s = "`" + s + "`"
		}
		w.text(s, l.st.code.over(st))
	case *ast.Emphasis:
		em := l.st.italic
		if n.Level >= 2 {
			em = l.st.bold
		}
		l.inlines(w, n, em.over(st))
	case *east.Strikethrough:
		l.inlines(w, n, l.st.strike.over(st))
	case *ast.Link:
		l.inlines(w, n, l.st.link.over(st))
		url := decode(n.Destination)
		if url != "" && url != plainText(n, l.src) {
			w.spaceIn(st)
			w.text(url, l.st.url.over(st))
		}
	case *ast.AutoLink:
		w.text(decode(n.Label(l.src)), l.st.url.over(st))
	case *ast.Image:
		w.text("image: ", l.st.image.over(st))
		l.inlines(w, n, l.st.image.over(st))
		if url := decode(n.Destination); url != "" {
			w.text(" → ", l.st.image.over(st))
			w.text(url, l.st.url.over(st))
		}
	case *ast.RawHTML:
		var b strings.Builder
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.Write(seg.Value(l.src))
		}
		w.text(termsafe.String(strings.ReplaceAll(b.String(), "\n", " ")), l.st.html.over(st))
	case *east.TaskCheckBox:
		if n.IsChecked {
			w.text("[✓]", l.st.task.over(st))
		} else {
			w.text("[ ]", st)
		}
		w.spaceIn(st)
	default:
		l.inlines(w, n, st)
	}
}

// prose adds text to w in st, a bare http(s) URL in it in the URL
// style: it is drawn as it is written, but stands out as a link does.
func (l *layout) prose(w *wrapper, s string, st style) {
	if !strings.Contains(s, "://") {
		w.text(s, st)
		return
	}
	for s != "" {
		i := strings.Index(s, "http")
		if i < 0 || !(strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://")) ||
			i > 0 && s[i-1] != ' ' && s[i-1] != '(' {
			if i < 0 {
				w.text(s, st)
				return
			}
			w.text(s[:i+4], st)
			s = s[i+4:]
			continue
		}
		end := strings.IndexByte(s[i:], ' ')
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		url := strings.TrimRight(s[i:end], ".,:;!?)")
		w.text(s[:i], st)
		w.text(url, l.st.url.over(st))
		s = s[i+len(url):]
	}
}

// plainText is what a link shows, without its styling: a link whose
// text is its URL shows the URL once.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.WriteString(decode(t.Segment.Value(src)))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// decode is Markdown text as it reads: backslash escapes and entity and
// character references resolved. A reference can name a control
// character (&#27; is ESC), so what comes out is made safe again.
func decode(v []byte) string {
	if !containsAny(v, '\\', '&') {
		return termsafe.String(string(v))
	}
	var b []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]):
			b = append(b, v[i+1])
			i++
			continue
		case c == '&':
			if j := indexByteWithin(v[i:], ';', 40); j > 0 {
				ref := v[i : i+j+1]
				r := util.ResolveEntityNames(util.ResolveNumericReferences(ref))
				if string(r) != string(ref) {
					b = append(b, r...)
					i += j
					continue
				}
			}
		}
		b = append(b, c)
	}
	return termsafe.String(string(b))
}

func containsAny(v []byte, a, b byte) bool {
	for _, c := range v {
		if c == a || c == b {
			return true
		}
	}
	return false
}

func indexByteWithin(v []byte, c byte, limit int) int {
	for i := 0; i < len(v) && i < limit; i++ {
		if v[i] == c {
			return i
		}
	}
	return -1
}
