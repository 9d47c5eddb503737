package panes

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/markdown"
)

// descriptionMarkdown is a tool's description rendered as Markdown at
// width w, less the details' indent; nil with a note (too big, still
// rendering) or without one (m shows the source) when the details show
// the source instead.
func (p *Tools) descriptionMarkdown(desc string, w int) (lines []string, note string) {
	p.descriptionRendered = false
	if p.mdSource {
		return nil, ""
	}
	lines, st := markdown.Get(p.theme, desc, max(w-2, 1))
	switch st {
	case markdown.Rendered:
		p.descriptionRendered = true
		return lines, ""
	case markdown.Pending:
		p.mdWait = true
		return nil, markdown.PendingNote
	}
	return nil, markdown.TooBigNote(len(desc))
}

// selectedDescribed reports whether the details show a description (which
// m shows as source or rendered).
func (p *Tools) selectedDescribed() bool {
	t, ok := p.Selected()
	return ok && t.Description != "" && p.details.Rows() > 0
}

// markdownKey is the m binding, its help saying what it shows next and
// enabled while there is a description to show.
func (p *Tools) markdownKey() key.Binding {
	b := markdownToggle(p.keys.Result.Markdown, p.mdSource)
	b.SetEnabled(p.selectedDescribed())
	return b
}

// MarkdownCmd renders off the UI goroutine the description the details
// show as source until it is ready; nil when there is none.
func (p *Tools) MarkdownCmd() tea.Cmd {
	t, ok := p.Selected()
	if !p.mdWait || !ok {
		return nil
	}
	return markdown.Request(p.theme, t.Description, max(p.details.Width()-2, 1))
}

// MarkdownReady draws the details again when the description they show as
// source has been rendered (markdown.RenderedMsg).
func (p *Tools) MarkdownReady() {
	if p.mdWait {
		p.detailKey = ""
		p.syncDetails()
	}
}
