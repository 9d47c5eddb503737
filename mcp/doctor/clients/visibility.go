package clients

import (
	"encoding/json"
	"slices"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// appOnly is why a tool for views alone (MCP Apps' _meta.ui.visibility
// without "model") is not sent to the model, as the spec and VS Code read
// the visibility: an array of strings, "model" among them or not; anything
// else is the default, ["model", "app"].
func appOnly(t *mcp.Tool) string {
	v := apps.ParseTool(raw(t))
	if v.VisibleToModel() {
		return ""
	}
	return "for views alone: _meta.ui.visibility [" + v.VisibilityLabel() + "] leaves out \"model\", so the model is not given it"
}

// claudeAppOnly is Claude Code 2.1.328's reading of the same: a _meta.ui
// that is not an object, or a visibility that is not an array, counts as
// neither audience, so the tool is kept from the model too.
func claudeAppOnly(t *mcp.Tool) string {
	m, ok := jsonview.Member(raw(t), "_meta")
	if !ok {
		return ""
	}
	ui, ok := jsonview.Member(m, apps.MetaUI)
	if !ok || string(ui) == "null" {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(ui, &obj) != nil || obj == nil {
		return "kept from the model: its _meta.ui is not an object, which Claude Code reads as visible to neither model nor app"
	}
	vis, ok := obj["visibility"]
	if !ok || string(vis) == "null" {
		return ""
	}
	var list []any
	if json.Unmarshal(vis, &list) != nil {
		return "kept from the model: its _meta.ui.visibility is not an array, which Claude Code reads as visible to neither model nor app"
	}
	if slices.Contains(list, any(apps.VisibilityModel)) {
		return ""
	}
	return "kept from the model: its _meta.ui.visibility leaves out \"model\" (Claude Code still lists it to MCP Apps hosts)"
}
