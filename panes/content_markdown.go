package panes

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/markdown"
)

// DocPart is a run of what the content view shows: lines drawn as they
// are, a Markdown text rendered at the view's width (Source is how it
// is drawn as source: m, too big, or still rendering), or a picture
// drawn below the line before it (content_image.go).
type DocPart struct {
	Lines    []string // styled and safe
	Markdown string   // a server's Markdown, as it came
	Source   []string // Markdown's source as drawn, styled and safe
	Indent   int      // the columns a rendered Markdown sits in by
	image    *imageRef
}

// DocLines are a document's lines with each Markdown part as its source.
func DocLines(doc []DocPart) []string {
	var out []string
	for _, p := range doc {
		if p.Markdown != "" {
			out = append(out, p.Source...)
			continue
		}
		out = append(out, p.Lines...)
	}
	return out
}

// docBuilder collects lines and Markdown parts in order.
type docBuilder struct{ parts []DocPart }

// lines starts a run of plain lines, to give back to flush.
func (d *docBuilder) lines() []string { return nil }

// flush appends a run of plain lines.
func (d *docBuilder) flush(lines []string) {
	if len(lines) > 0 {
		d.parts = append(d.parts, DocPart{Lines: lines})
	}
}

// markdown appends a Markdown part.
func (d *docBuilder) markdown(text string, source []string, indent int) {
	d.parts = append(d.parts, DocPart{Markdown: text, Source: source, Indent: indent})
}

// image appends a picture, drawn below the last line.
func (d *docBuilder) image(ref *imageRef) {
	d.parts = append(d.parts, DocPart{image: ref})
}

// SetDoc shows a document whose Markdown parts are rendered at the view's
// width; fold shows it wrapped, as SetFolded. The returned Cmd decodes its
// pictures off the UI goroutine: the text is on screen first.
func (c *Content) SetDoc(title string, doc []DocPart, fold bool) tea.Cmd {
	if fold {
		c.SetFolded(title, nil)
	} else {
		c.Set(title, nil)
	}
	c.doc = doc
	cmd := c.decodeImages()
	c.layoutDoc()
	return cmd
}

// hasMarkdown reports whether the view shows a Markdown part.
func (c *Content) hasMarkdown() bool {
	for _, p := range c.doc {
		if p.Markdown != "" {
			return true
		}
	}
	return false
}

// layoutDoc lays the document out at the view's width: a Markdown part
// rendered, or its source under a line saying why not; then its pictures
// placed below the lines they follow, wherever the Markdown put them.
func (c *Content) layoutDoc() {
	if c.doc == nil {
		return
	}
	c.mdWait = false
	var out []string
	c.placed = c.placed[:0]
	for _, p := range c.doc {
		if p.image != nil {
			c.placed = append(c.placed, placedImage{After: len(out) - 1, ref: p.image})
			continue
		}
		if p.Markdown == "" {
			out = append(out, p.Lines...)
			continue
		}
		if c.mdSource {
			out = append(out, p.Source...)
			continue
		}
		lines, st := markdown.Get(c.theme, p.Markdown, c.markdownWidth(p))
		switch st {
		case markdown.Rendered:
			pad := strings.Repeat(" ", p.Indent)
			for _, l := range lines {
				out = append(out, pad+l)
			}
			continue
		case markdown.Pending:
			c.mdWait = true
			out = append(out, c.theme.Detail.Hint.Render(markdown.PendingNote))
		default:
			out = append(out, c.theme.Detail.Hint.Render(markdown.TooBigNote(len(p.Markdown))))
		}
		out = append(out, p.Source...)
	}
	c.base = out
	c.placeImages()
}

// markdownWidth is the width part p is rendered at.
func (c *Content) markdownWidth(p DocPart) int { return max(c.w-2-p.Indent, 1) }

// MarkdownCmd renders off the UI goroutine the Markdown parts the view
// shows as source until they are ready; nil when there are none.
func (c *Content) MarkdownCmd() tea.Cmd {
	if !c.mdWait || c.showRaw {
		return nil
	}
	var cmds []tea.Cmd
	for _, p := range c.doc {
		if p.Markdown != "" {
			cmds = append(cmds, markdown.Request(c.theme, p.Markdown, c.markdownWidth(p)))
		}
	}
	return tea.Batch(cmds...)
}

// MarkdownReady lays the document out again when a part it shows as
// source has been rendered (markdown.RenderedMsg).
func (c *Content) MarkdownReady() {
	if c.mdWait {
		c.layoutDoc()
	}
}
