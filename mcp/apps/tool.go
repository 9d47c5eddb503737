package apps

import (
	"encoding/json"
	"slices"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// ToolView is what a tools/list entry says about its view: the template it
// names under each key, and who may see the tool.
type ToolView struct {
	// ResourceURI is _meta.ui.resourceUri ("" when absent).
	ResourceURI string
	// FlatResourceURI is the deprecated _meta["ui/resourceUri"].
	FlatResourceURI string
	// OutputTemplate is ChatGPT's _meta["openai/outputTemplate"].
	OutputTemplate string
	// Visibility is _meta.ui.visibility's strings as sent; nil when absent
	// or not an array, which means ["model", "app"].
	Visibility []string
	// WidgetAccessible is _meta["openai/widgetAccessible"] (nil when absent).
	WidgetAccessible *bool
	// Malformed says which keys had the wrong type, in the order read.
	Malformed []string
}

// ParseTool reads the view of one tools/list entry as sent. Only _meta is
// decoded: the panes ask on every frame they draw, and an entry's schemas
// may be large.
func ParseTool(entry json.RawMessage) ToolView {
	m, has := jsonview.Member(entry, "_meta")
	if !has || string(m) == "null" {
		return ToolView{}
	}
	v := ParseToolMeta(m)
	if _, isObj := object(m); !isObj {
		v.Malformed = append(v.Malformed, "_meta is not an object")
	}
	return v
}

// ParseToolMeta reads the view from a tool's _meta object.
func ParseToolMeta(metaRaw json.RawMessage) ToolView {
	var v ToolView
	meta, ok := object(metaRaw)
	if !ok {
		return v
	}
	if raw, has := meta[MetaUI]; has {
		v.parseUI(raw)
	}
	if raw, has := meta[MetaFlatResourceURI]; has {
		if s, good := str(raw); good {
			v.FlatResourceURI = s
		} else {
			v.Malformed = append(v.Malformed, `_meta["ui/resourceUri"] is not a string`)
		}
	}
	if raw, has := meta[MetaOutputTemplate]; has {
		if s, good := str(raw); good {
			v.OutputTemplate = s
		} else {
			v.Malformed = append(v.Malformed, `_meta["openai/outputTemplate"] is not a string`)
		}
	}
	if raw, has := meta[MetaWidgetAccessible]; has {
		if b, good := boolean(raw); good {
			v.WidgetAccessible = &b
		} else {
			v.Malformed = append(v.Malformed, `_meta["openai/widgetAccessible"] is not a boolean`)
		}
	}
	return v
}

func (v *ToolView) parseUI(raw json.RawMessage) {
	ui, ok := object(raw)
	if !ok {
		v.Malformed = append(v.Malformed, "_meta.ui is not an object")
		return
	}
	if r, has := ui["resourceUri"]; has {
		if s, good := str(r); good {
			v.ResourceURI = s
		} else {
			v.Malformed = append(v.Malformed, "_meta.ui.resourceUri is not a string")
		}
	}
	if r, has := ui["visibility"]; has {
		// A visibility that is not an array reads as absent, as VS Code
		// reads it; the doctor still says it is malformed.
		list, good := stringList(r)
		if !good {
			v.Malformed = append(v.Malformed, "_meta.ui.visibility is not an array of strings")
		}
		v.Visibility = list
	}
}

// HasView reports whether any key names a template.
func (v ToolView) HasView() bool {
	return v.ResourceURI != "" || v.FlatResourceURI != "" || v.OutputTemplate != ""
}

// URI is the template a host renders: _meta.ui.resourceUri, else the flat
// key, else openai/outputTemplate, as the SDK's hosts look them up.
func (v ToolView) URI() string {
	switch {
	case v.ResourceURI != "":
		return v.ResourceURI
	case v.FlatResourceURI != "":
		return v.FlatResourceURI
	}
	return v.OutputTemplate
}

// Dialect is the bridge the host would speak to the view of URI: MCP Apps
// when either MCP key names it, skybridge when only openai/outputTemplate does.
func (v ToolView) Dialect() Dialect {
	switch {
	case v.ResourceURI != "" || v.FlatResourceURI != "":
		return DialectMCPApps
	case v.OutputTemplate != "":
		return DialectSkybridge
	}
	return DialectNone
}

// MCPAppsURI is the template an MCP Apps host renders ("" when only the
// ChatGPT key is set).
func (v ToolView) MCPAppsURI() string {
	if v.ResourceURI != "" {
		return v.ResourceURI
	}
	return v.FlatResourceURI
}

// VisibleToModel reports whether the model sees the tool: visibility absent,
// or naming "model".
func (v ToolView) VisibleToModel() bool {
	return v.Visibility == nil || slices.Contains(v.Visibility, VisibilityModel)
}

// VisibleToApp reports whether a view may call the tool: visibility absent,
// or naming "app".
func (v ToolView) VisibleToApp() bool {
	return v.Visibility == nil || slices.Contains(v.Visibility, VisibilityApp)
}

// UnknownVisibility lists the visibility values the spec does not define,
// in the order sent.
func (v ToolView) UnknownVisibility() []string {
	var out []string
	for _, s := range v.Visibility {
		if s != VisibilityModel && s != VisibilityApp {
			out = append(out, s)
		}
	}
	return out
}

// VisibilityLabel is the visibility as the panes show it: "model, app" when
// absent (the default), "none" for an empty list.
func (v ToolView) VisibilityLabel() string {
	if v.Visibility == nil {
		return VisibilityModel + ", " + VisibilityApp
	}
	if len(v.Visibility) == 0 {
		return "none"
	}
	out := v.Visibility[0]
	for _, s := range v.Visibility[1:] {
		out += ", " + s
	}
	return out
}

// HiddenFromModel reports whether a tools/list entry is for views only: a
// client presenting tools to its model leaves it out.
func HiddenFromModel(entry json.RawMessage) bool {
	return !ParseTool(entry).VisibleToModel()
}
