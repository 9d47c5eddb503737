package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes/markdown"
)

// markdownPane is a pane that renders Markdown (panes/markdown): a text
// too big to render at once is shown as source while a Cmd renders it,
// and laid out again when markdown.RenderedMsg says it is ready.
type markdownPane interface {
	MarkdownCmd() tea.Cmd
	MarkdownReady()
}

// markdownPanes are the panes that render Markdown: the result, the
// content view (a resource or prompt read, a prompt's details) and the
// tools' details.
func (m *Model) markdownPanes() []markdownPane {
	out := []markdownPane{m.result, m.content}
	if p, ok := m.tools.(markdownPane); ok {
		out = append(out, p)
	}
	return out
}

// markdownCmds starts the renderings the panes wait for, after any
// message: a pane lays Markdown out where it cannot return a Cmd (a
// resize, a theme change).
func (m *Model) markdownCmds() tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.markdownPanes() {
		if c := p.MarkdownCmd(); c != nil {
			cmds = append(cmds, c)
		}
	}
	return tea.Batch(cmds...)
}

// markdownReady lays out again the panes that showed a source while it
// was rendered.
func (m *Model) markdownReady(markdown.RenderedMsg) {
	for _, p := range m.markdownPanes() {
		p.MarkdownReady()
	}
}
