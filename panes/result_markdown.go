package panes

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/markdown"
)

// SetMarkdownText says whether text content blocks are Markdown (the
// --markdown setting): rendered as text/markdown resources are. The spec
// gives a text block no MIME type, so it is the user's call.
func (r *Result) SetMarkdownText(on bool) {
	if r.mdText == on {
		return
	}
	r.mdText = on
	if r.msg != nil && !r.loading {
		r.parse()
		r.layout()
	}
}

// hasMarkdown reports whether the result has a part shown as Markdown.
func (r *Result) hasMarkdown() bool {
	for _, b := range r.blocks {
		if b.markdown && b.text != "" {
			return true
		}
	}
	return false
}

// markdownKey is the m binding, its help saying what it shows next.
func (r *Result) markdownKey() key.Binding {
	return markdownToggle(r.keys.Result.Markdown, r.mdSource)
}

// markdownToggle is the Markdown key with help for the view's state: the
// source next, or the rendering again.
func markdownToggle(b key.Binding, showingSource bool) key.Binding {
	if showingSource {
		b.SetHelp(b.Help().Key, "render Markdown")
	}
	return b
}

// addMarkdown lays out a Markdown part rendered at width w, or its source
// under a line saying why (too big, or still rendering); false when m
// shows sources, and addText lays it out.
func (r *Result) addMarkdown(b resultBlock, w int) bool {
	if r.mdSource {
		return false
	}
	lines, st := markdown.Get(r.theme, b.text, w)
	switch st {
	case markdown.Rendered:
		for _, l := range lines {
			r.add(resultLine{kind: lineStyled, text: l})
		}
		return true
	case markdown.Pending:
		r.mdWait = true
		r.add(resultLine{kind: lineStyled, text: r.theme.Detail.Hint.Render(markdown.PendingNote)})
	default:
		r.add(resultLine{kind: lineStyled, text: r.theme.Detail.Hint.Render(markdown.TooBigNote(len(b.text)))})
	}
	r.addText(b, w)
	return true
}

// MarkdownCmd renders off the UI goroutine the Markdown parts the view
// shows as source until they are ready; nil when there are none.
func (r *Result) MarkdownCmd() tea.Cmd {
	if !r.mdWait || r.loading {
		return nil
	}
	var cmds []tea.Cmd
	w := max(r.width-2, 1)
	for _, b := range r.blocks {
		if b.markdown && b.text != "" {
			cmds = append(cmds, markdown.Request(r.theme, b.text, w))
		}
	}
	return tea.Batch(cmds...)
}

// MarkdownReady lays the result out again when a part it shows as source
// has been rendered (markdown.RenderedMsg).
func (r *Result) MarkdownReady() {
	if r.mdWait && !r.loading {
		r.layout()
		r.sizeBody()
	}
}
