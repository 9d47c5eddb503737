// Package apps is mcpscope's model of MCP Apps (the extension
// io.modelcontextprotocol/ui, stable spec 2026-01-26) and of its ChatGPT
// dialect (openai/outputTemplate, text/html+skybridge): which view a tool
// renders and who may see the tool, what a ui:// resource asks of its host
// (CSP domains, permissions, a dedicated origin, a border), the CSP a host
// sends with the view, and the capability a client offers.
//
// It reads the server's JSON as sent and never fixes it: a key of the wrong
// type is reported in the parsed value's Malformed list, so that the doctor
// can say so and the panes can still show the rest. It imports only
// mcp/lib, so the protocol client, the doctor, the panes and the preview
// host can all share it.
package apps

import (
	"encoding/json"
	"slices"
)

// The extension's names, as the specification and the SDK spell them.
const (
	// ExtensionID is the key under capabilities.extensions.
	ExtensionID = "io.modelcontextprotocol/ui"
	// MIMEType is the MIME type of an MCP Apps view (a ui:// resource).
	MIMEType = "text/html;profile=mcp-app"
	// MIMETypeSkybridge is the MIME type of a ChatGPT (skybridge) widget.
	MIMETypeSkybridge = "text/html+skybridge"
	// URIScheme prefixes every view's resource URI.
	URIScheme = "ui://"

	// MetaUI is the _meta key of the tool's and the resource's ui object.
	MetaUI = "ui"
	// MetaFlatResourceURI is the deprecated flat spelling of
	// _meta.ui.resourceUri; servers built with the SDK still send both.
	MetaFlatResourceURI = "ui/resourceUri"
	// MetaOutputTemplate is the ChatGPT dialect's template key.
	MetaOutputTemplate = "openai/outputTemplate"
	// MetaWidgetCSP is the ChatGPT dialect's CSP on a resource.
	MetaWidgetCSP = "openai/widgetCSP"
	// MetaWidgetAccessible says a ChatGPT widget may call tools.
	MetaWidgetAccessible = "openai/widgetAccessible"
	// MetaWidgetDomain is the ChatGPT dialect's dedicated origin.
	MetaWidgetDomain = "openai/widgetDomain"
	// MetaWidgetPrefersBorder is the ChatGPT dialect's border preference.
	MetaWidgetPrefersBorder = "openai/widgetPrefersBorder"
)

// Visibility values of _meta.ui.visibility.
const (
	// VisibilityModel means the model sees and may call the tool.
	VisibilityModel = "model"
	// VisibilityApp means views from this server may call the tool.
	VisibilityApp = "app"
)

// Dialect is the bridge a view speaks.
type Dialect uint8

const (
	// DialectNone means the tool has no view.
	DialectNone Dialect = iota
	// DialectMCPApps is the ui/* bridge, MIME type text/html;profile=mcp-app.
	DialectMCPApps
	// DialectSkybridge is ChatGPT's window.openai, MIME type text/html+skybridge.
	DialectSkybridge
)

// String names the dialect as the docs and findings do.
func (d Dialect) String() string {
	switch d {
	case DialectMCPApps:
		return "MCP Apps"
	case DialectSkybridge:
		return "skybridge"
	}
	return "none"
}

// MIMEType is the MIME type a view of this dialect must have ("" for none).
func (d Dialect) MIMEType() string {
	switch d {
	case DialectMCPApps:
		return MIMEType
	case DialectSkybridge:
		return MIMETypeSkybridge
	}
	return ""
}

// DialectOfMIME is the dialect of a resource's MIME type, DialectNone when it
// is neither. Parameters are compared as written: the spec names the profile
// parameter exactly, and a host that matches strings would refuse a variant.
func DialectOfMIME(mime string) Dialect {
	switch mime {
	case MIMEType:
		return DialectMCPApps
	case MIMETypeSkybridge:
		return DialectSkybridge
	}
	return DialectNone
}

// ClientCapability is what mcpscope offers under
// capabilities.extensions[ExtensionID].
func ClientCapability() json.RawMessage {
	return json.RawMessage(`{"mimeTypes":["` + MIMEType + `"]}`)
}

// Capability is one side's io.modelcontextprotocol/ui capability.
type Capability struct {
	// MimeTypes as sent (nil when absent).
	MimeTypes []string
	// Raw is the capability object exactly as sent.
	Raw json.RawMessage
	// Malformed says which keys had the wrong type.
	Malformed []string
}

// SupportsMCPApps reports whether the capability names MIMEType.
func (c Capability) SupportsMCPApps() bool {
	return slices.Contains(c.MimeTypes, MIMEType)
}

// CapabilityOf reads capabilities.extensions[ExtensionID] from a
// capabilities object; ok is false when the extension is not declared.
func CapabilityOf(capabilities json.RawMessage) (c Capability, ok bool) {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(capabilities, &caps) != nil {
		return Capability{}, false
	}
	raw, ok := caps.Extensions[ExtensionID]
	if !ok {
		return Capability{}, false
	}
	c.Raw = raw
	obj, isObj := object(raw)
	if !isObj {
		c.Malformed = append(c.Malformed, "extensions."+ExtensionID+" is not an object")
		return c, true
	}
	if v, has := obj["mimeTypes"]; has {
		list, good := stringList(v)
		if !good {
			c.Malformed = append(c.Malformed, "mimeTypes is not an array of strings")
		}
		c.MimeTypes = list
	}
	return c, true
}

// object decodes a JSON object into its members; ok is false for anything
// else (null included).
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// str decodes a JSON string.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// stringList decodes an array of strings; a wrong element makes ok false and
// keeps the strings that were strings.
func stringList(raw json.RawMessage) (out []string, ok bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	ok = true
	out = make([]string, 0, len(items))
	for _, it := range items {
		s, good := str(it)
		if !good {
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok
}

// boolean decodes a JSON boolean.
func boolean(raw json.RawMessage) (bool, bool) {
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, false
	}
	return b, true
}

// WithoutExtension is a capabilities object with the extension taken out of
// its extensions map (and the map with it, when nothing else is left), for
// offering a recorded client's capabilities without MCP Apps. Anything that
// is not an object is given back as it came.
func WithoutExtension(capabilities json.RawMessage) json.RawMessage {
	caps, ok := object(capabilities)
	if !ok {
		return capabilities
	}
	ext, ok := object(caps["extensions"])
	if !ok {
		return capabilities
	}
	if _, has := ext[ExtensionID]; !has {
		return capabilities
	}
	delete(ext, ExtensionID)
	if len(ext) == 0 {
		delete(caps, "extensions")
	} else {
		raw, err := json.Marshal(ext)
		if err != nil {
			return capabilities
		}
		caps["extensions"] = raw
	}
	out, err := json.Marshal(caps)
	if err != nil {
		return capabilities
	}
	return out
}
