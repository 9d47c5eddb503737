package panes

import (
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// A draft outlives a change of its tool (a re-list after list_changed, a
// server restarted by --watch): it is kept whatever the new schema says,
// and when the new schema refuses its value the draft says why, on its
// badge and at the top of the tool's details, until it is opened (the form
// then starts from its value under the new schema, nothing lost).

// refusedBadge marks a draft its tool's new schema refuses.
const refusedBadge = "✎ draft ⚠"

// checkDrafts judges each kept draft against its tool as listed now.
func (p *Tools) checkDrafts() {
	for name, d := range p.drafts {
		d.refused = nil
		tool, ok := p.toolNamed(name)
		switch {
		case !ok:
			d.refused = []string{"the server no longer lists " + name}
		case string(tool.InputSchema) == d.schema:
		default:
			d.refused = refusals(tool.InputSchema, d)
		}
		p.drafts[name] = d
	}
}

// refusals are the new schema's objections to a draft's value, nil when it
// accepts it.
func refusals(newSchema []byte, d toolDraft) []string {
	value, _ := d.form.Value()
	s, err := schema.Compile(newSchema)
	if err != nil {
		return []string{"the new input schema does not compile: " + err.Error()}
	}
	v, err := schema.Decode(value)
	if err != nil {
		return []string{"the draft is not JSON: " + err.Error()}
	}
	var out []string
	for _, is := range s.Validate(v) {
		out = append(out, is.String())
	}
	return out
}

func (p *Tools) toolNamed(name string) (mcp.Tool, bool) {
	for _, t := range p.tools {
		if t.Name == name {
			return t, true
		}
	}
	return mcp.Tool{}, false
}

// widestDraftBadge is the widest badge a kept draft shows.
func (p *Tools) widestDraftBadge() string {
	for _, d := range p.drafts {
		if len(d.refused) > 0 {
			return refusedBadge
		}
	}
	return draftBadge
}

// DraftRefused is why a tool's kept draft no longer fits the tool as
// listed now; nil when it fits or there is no draft.
func (p *Tools) DraftRefused(name string) []string { return p.drafts[name].refused }

// draftMark is the badge of a tool's kept draft, "" for none.
func (p *Tools) draftMark(name string) string {
	d, ok := p.drafts[name]
	switch {
	case !ok:
		return ""
	case len(d.refused) > 0:
		return p.theme.Form.Warn.Render(refusedBadge)
	}
	return p.theme.Tools.Badge.Render(draftBadge)
}

// draftDetails head the details of a tool whose draft the new schema
// refuses.
func (p *Tools) draftDetails(name string) []detailLine {
	refused := p.drafts[name].refused
	if len(refused) == 0 {
		return nil
	}
	th := p.theme
	out := []detailLine{{text: th.Form.Warn.Render("⚠ the kept draft no longer fits this tool:"), hang: 2}}
	for _, r := range refused {
		out = append(out, detailLine{text: "  " + th.Detail.Problem.Render("✗ ") + th.Detail.Value.Render(termsafe.String(r)), hang: 4})
	}
	return append(out, detailLine{text: th.Detail.Label.Render("  enter opens it on the new schema; what no longer fits is kept as JSON text"), hang: 2}, detailLine{})
}
