package markdown

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// style is what a run of text is drawn with: a colour (nil: the
// terminal's) and attributes.
type style struct {
	fg                                     color.Color
	bold, faint, italic, underline, strike bool
}

// styleOf reads a theme's lipgloss style as a style.
func styleOf(s lipgloss.Style) style {
	st := style{bold: s.GetBold(), faint: s.GetFaint(), italic: s.GetItalic(),
		underline: s.GetUnderline(), strike: s.GetStrikethrough()}
	if c, none := s.GetForeground(), (lipgloss.NoColor{}); c != none {
		st.fg = c
	}
	return st
}

// over is s drawn inside base: s's colour if it has one, and the
// attributes of both.
func (s style) over(base style) style {
	if s.fg == nil {
		s.fg = base.fg
	}
	s.bold = s.bold || base.bold
	s.faint = s.faint || base.faint
	s.italic = s.italic || base.italic
	s.underline = s.underline || base.underline
	s.strike = s.strike || base.strike
	return s
}

func (s style) plain() bool {
	return s.fg == nil && !s.bold && !s.faint && !s.italic && !s.underline && !s.strike
}

func (s style) same(o style) bool {
	return s.bold == o.bold && s.faint == o.faint && s.italic == o.italic && s.underline == o.underline &&
		s.strike == o.strike && sameColor(s.fg, o.fg)
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// sgr is the SGR sequence that starts s; the terminal's renderer brings
// the 24-bit colour down to what the terminal has.
func (s style) sgr() string {
	var codes []string
	if s.bold {
		codes = append(codes, "1")
	}
	if s.faint {
		codes = append(codes, "2")
	}
	if s.italic {
		codes = append(codes, "3")
	}
	if s.underline {
		codes = append(codes, "4")
	}
	if s.strike {
		codes = append(codes, "9")
	}
	if s.fg != nil {
		r, g, b, _ := s.fg.RGBA()
		codes = append(codes, fmt.Sprintf("38;2;%d;%d;%d", r>>8, g>>8, b>>8))
	}
	return "\x1b[" + strings.Join(codes, ";") + "m"
}

const reset = "\x1b[m"

// piece is a run of text in one style, on one line.
type piece struct {
	text string
	st   style
}

// line is a laid-out line and its width in cells.
type line struct {
	pieces []piece
	w      int
}

func (l *line) add(p piece, w int) {
	if n := len(l.pieces); n > 0 && l.pieces[n-1].st.same(p.st) {
		l.pieces[n-1].text += p.text
	} else {
		l.pieces = append(l.pieces, p)
	}
	l.w += w
}

// String is the line with each styled run opened and reset, so a line
// stands alone: a view may cut, pad or drop any of them.
func (l line) String() string {
	var b strings.Builder
	for _, p := range l.pieces {
		if p.st.plain() {
			b.WriteString(p.text)
			continue
		}
		b.WriteString(p.st.sgr())
		b.WriteString(p.text)
		b.WriteString(reset)
	}
	return b.String()
}

// cells is the width of plain text in terminal cells.
func cells(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// wrapper lays inline text out in lines of at most width cells,
// breaking at spaces; a word wider than a line is broken where it
// reaches the edge (wide characters and emoji are never split).
type wrapper struct {
	width int
	lines []line
	cur   line
	word  []piece
	wordW int
	space *piece // the space before the word, if any
}

func newWrapper(width int) *wrapper { return &wrapper{width: max(width, 1)} }

// text adds s, in st, to the paragraph.
func (w *wrapper) text(s string, st style) {
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			w.word = append(w.word, piece{s, st})
			w.wordW += cells(s)
			return
		}
		if i > 0 {
			w.word = append(w.word, piece{s[:i], st})
			w.wordW += cells(s[:i])
		}
		w.spaceIn(st)
		s = s[i+1:]
	}
}

// spaceIn ends the word with a space in st (a soft line break is one).
func (w *wrapper) spaceIn(st style) {
	w.flushWord()
	if w.space == nil && w.cur.w > 0 {
		w.space = &piece{" ", st}
	}
}

// breakLine ends the line (a hard line break).
func (w *wrapper) breakLine() {
	w.flushWord()
	w.lines = append(w.lines, w.cur)
	w.cur, w.space = line{}, nil
}

func (w *wrapper) newLine() {
	w.lines = append(w.lines, w.cur)
	w.cur, w.space = line{}, nil
}

func (w *wrapper) flushWord() {
	if len(w.word) == 0 {
		return
	}
	switch {
	case w.cur.w == 0:
	case w.cur.w+1+w.wordW <= w.width:
		if w.space != nil {
			w.cur.add(*w.space, 1)
		}
	default:
		w.newLine()
	}
	w.space = nil
	if w.cur.w+w.wordW <= w.width {
		for _, p := range w.word {
			w.cur.add(p, cells(p.text))
		}
	} else {
		for _, p := range w.word {
			w.hardBreak(p)
		}
	}
	w.word, w.wordW = w.word[:0], 0
}

// hardBreak places p from the current column, going on to new lines
// where it reaches the edge. It walks p's grapheme clusters once: a
// word as long as the text costs what the text does.
func (w *wrapper) hardBreak(p piece) {
	s := p.text
	var chunk strings.Builder
	chunkW := 0
	flush := func() {
		if chunk.Len() > 0 {
			w.cur.add(piece{chunk.String(), p.st}, chunkW)
			chunk.Reset()
			chunkW = 0
		}
	}
	for s != "" {
		g, gw := s[:1], 1
		if s[0] >= 0x80 {
			g, gw = ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		}
		if w.cur.w+chunkW+gw > w.width && w.cur.w+chunkW > 0 {
			flush()
			w.newLine()
		}
		chunk.WriteString(g)
		chunkW += gw
		s = s[len(g):]
	}
	flush()
}

// finish is the lines laid out.
func (w *wrapper) finish() []line {
	w.flushWord()
	if w.cur.w > 0 || len(w.lines) == 0 {
		w.lines = append(w.lines, w.cur)
	}
	return w.lines
}

// preformatted is s (code, raw HTML) in st, line for line, each cut
// where it reaches width and going on below: spaces are kept.
func preformatted(s string, st style, width int) []line {
	var out []line
	for _, src := range strings.Split(s, "\n") {
		w := newWrapper(width)
		if src != "" {
			w.hardBreak(piece{src, st})
		}
		out = append(out, w.finish()...)
	}
	return out
}

func strs(lines []line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.String()
	}
	return out
}

// keepSGR drops from s every escape sequence but SGR, and every control
// character: what a highlighter gives back reaches the terminal as
// colours and text only.
func keepSGR(s string) string {
	var b strings.Builder
	var state byte
	for len(s) > 0 {
		seq, width, n, newState := ansi.DecodeSequence(s, state, nil)
		state = newState
		s = s[n:]
		switch {
		case sgr.MatchString(seq):
			b.WriteString(seq)
		case width > 0 || len(seq) == 1 && seq[0] >= 0x20 && seq[0] != 0x7f:
			b.WriteString(seq)
		}
	}
	return b.String()
}

// styledLines cuts styled lines (a highlighter's) at width and makes
// each piece stand alone: the styles open at a cut are opened again on
// the next line, and every line that ends styled ends with a reset.
func styledLines(src []string, width int) []string {
	var out []string
	for _, l := range src {
		l = keepSGR(l)
		parts := []string{l}
		if ansi.StringWidth(l) > width {
			parts = strings.Split(ansi.Hardwrap(l, width, true), "\n")
		}
		active := ""
		for _, p := range parts {
			s := active + p
			for _, q := range sgrAll.FindAllString(p, -1) {
				if q == "\x1b[m" || q == "\x1b[0m" {
					active = ""
				} else {
					active += q
				}
			}
			if active != "" {
				s += reset
			}
			out = append(out, s)
		}
	}
	return out
}
