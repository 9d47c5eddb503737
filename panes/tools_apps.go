package panes

import (
	"encoding/json"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// toolView reads a tool's MCP Apps view from the entry as sent.
func toolView(t *mcp.Tool) apps.ToolView {
	if len(t.Raw) == 0 {
		return apps.ToolView{}
	}
	return apps.ParseTool(t.Raw)
}

// appBadges mark a tool that renders a view (MCP Apps or ChatGPT's
// skybridge) and one for views alone, which a host keeps from the model.
func appBadges(t *mcp.Tool) []annotationBadge {
	v := toolView(t)
	var out []annotationBadge
	if v.HasView() {
		out = append(out, annotationBadge{"view", "UI", false})
	}
	if !v.VisibleToModel() {
		out = append(out, annotationBadge{"app only", "APP", false})
	}
	return out
}

// appLines are the tool's App view section: the template under each key,
// the dialect its host speaks, who sees the tool, and any key the server
// sent in a shape the spec does not allow.
func (p *Tools) appLines(t *mcp.Tool) []string {
	v := toolView(t)
	if !v.HasView() && v.Visibility == nil && len(v.Malformed) == 0 {
		return nil
	}
	th := p.theme
	label, value := th.Detail.Label, th.Detail.Value
	var out []string
	line := func(k, val string) {
		out = append(out, "  "+label.Render(k+" ")+value.Render(termsafe.String(val)))
	}
	if v.HasView() {
		line("template", v.URI()+" ("+v.Dialect().String()+", "+v.Dialect().MIMEType()+")")
		if v.ResourceURI != "" {
			line("_meta.ui.resourceUri", v.ResourceURI)
		}
		if v.FlatResourceURI != "" {
			line(`_meta["ui/resourceUri"] (deprecated)`, v.FlatResourceURI)
		}
		if v.OutputTemplate != "" {
			line(`_meta["openai/outputTemplate"]`, v.OutputTemplate)
		}
		if v.WidgetAccessible != nil {
			b, _ := json.Marshal(*v.WidgetAccessible)
			line(`_meta["openai/widgetAccessible"]`, string(b))
		}
	}
	who := "the model and views (the default)"
	switch {
	case v.Visibility == nil:
	case v.VisibleToModel() && v.VisibleToApp():
		who = "the model and views"
	case v.VisibleToModel():
		who = "the model only: views may not call it"
	case v.VisibleToApp():
		who = "views only: a host keeps it from the model"
	default:
		who = "neither the model nor views"
	}
	line("visibility", "["+v.VisibilityLabel()+"]: "+who)
	if u := v.UnknownVisibility(); len(u) > 0 {
		for _, s := range u {
			out = append(out, "  "+th.Detail.Problem.Render(termsafe.String("unknown visibility value "+s)))
		}
	}
	for _, m := range v.Malformed {
		out = append(out, "  "+th.Detail.Problem.Render(termsafe.String(m)))
	}
	return out
}
