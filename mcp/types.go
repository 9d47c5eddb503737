package mcp

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpscope/mcpscope/mcp/apps"
)

// Protocol versions mcpscope speaks (mcp-protocol.md §1.1).
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"

	// LatestLegacyVersion is offered in initialize unless the user asks
	// for another.
	LatestLegacyVersion = Version20251125
	// LatestModernVersion is sent in _meta in the modern era.
	LatestModernVersion = Version20260728
)

// LegacyVersions are the versions with an initialize handshake, oldest first.
var LegacyVersions = []string{Version20241105, Version20250326, Version20250618, Version20251125}

// ModernVersions are the stateless versions, oldest first.
var ModernVersions = []string{Version20260728}

// IsLegacyVersion reports whether v is a legacy version mcpscope supports.
func IsLegacyVersion(v string) bool { return slices.Contains(LegacyVersions, v) }

// IsModernVersion reports whether v is a modern version mcpscope supports.
func IsModernVersion(v string) bool { return slices.Contains(ModernVersions, v) }

// Reserved _meta keys of the modern era.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Era is the protocol generation: legacy (initialize, a stateful session)
// or modern (stateless requests carrying _meta).
type Era uint8

// The eras: legacy (2024-11-05 to 2025-11-25), modern (2026-07-28), or
// auto-detected.
const (
	EraLegacy Era = iota + 1
	EraModern
	// EraAuto probes with server/discover and falls back to legacy.
	EraAuto
)

func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	case EraAuto:
		return "auto"
	}
	return "unknown"
}

// ParseEra reads an --era value.
func ParseEra(s string) (Era, bool) {
	switch s {
	case "legacy":
		return EraLegacy, true
	case "modern":
		return EraModern, true
	case "auto":
		return EraAuto, true
	}
	return 0, false
}

// Implementation describes a client or server (clientInfo, serverInfo).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an icon reference from 2025-11-25 on.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Handshake is what the client offered and what the server granted.
type Handshake struct {
	Era Era // the era in use: EraLegacy or EraModern, never EraAuto

	OfferedVersion     string          // what mcpscope asked for
	ProtocolVersion    string          // what the server answered (the version in use)
	ClientCapabilities json.RawMessage // offered
	ClientInfo         Implementation
	ServerCapabilities json.RawMessage // granted, exactly as sent
	ServerInfo         Implementation
	Instructions       string

	// Result is the raw initialize or server/discover result.
	Result json.RawMessage
	// SupportedVersions is the modern server's list (server/discover).
	SupportedVersions []string
	// Meta is the _meta object sent on every modern request.
	Meta json.RawMessage
	// ProbeOutcome describes the auto-era probe, when one ran.
	ProbeOutcome string

	Duration time.Duration // from the first handshake frame to its answer
}

// HasCapability reports whether the server granted a capability, following
// a path of keys: HasCapability("resources", "subscribe"). A sub-capability
// counts when its value is true or an object.
func (h *Handshake) HasCapability(path ...string) bool {
	if h == nil {
		return false
	}
	cur := h.ServerCapabilities
	for _, key := range path {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			return false
		}
		v, ok := obj[key]
		if !ok {
			return false
		}
		cur = v
	}
	s := string(cur)
	return s != "false" && s != "null"
}

// Tool is one entry of tools/list. Raw keeps the entry exactly as sent.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    json.RawMessage  `json:"execution,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Raw          json.RawMessage  `json:"-"`
}

// ToolAnnotations are hints about a tool's behaviour. They are the server's
// claims, not facts.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// DisplayName is the spec's display precedence: title, annotations.title, name.
func (t *Tool) DisplayName() string {
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil && t.Annotations.Title != "" {
		return t.Annotations.Title
	}
	return t.Name
}

// ParseTools decodes tools/list items. Entries that do not decode are kept
// with only Raw set, so nothing the server sent disappears.
func ParseTools(items []json.RawMessage) []Tool {
	tools := make([]Tool, 0, len(items))
	for _, raw := range items {
		var t Tool
		_ = json.Unmarshal(raw, &t) // best effort: a broken entry keeps its Raw
		t.Raw = raw
		tools = append(tools, t)
	}
	return tools
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Raw         json.RawMessage  `json:"-"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// DefaultClientCapabilities is what mcpscope offers: everything a server may
// ask of a client, so that a debugger can see those requests, and MCP Apps
// (extensions["io.modelcontextprotocol/ui"]), so that a server shows the
// tools and views it keeps for clients that can render them.
//
// The extensions map is named by the schema only from 2026-07-28, but it is
// offered in every version: earlier capabilities objects are open, the SDKs
// read extensions in any version, and MCP Apps servers negotiate 2025-06-18.
func DefaultClientCapabilities() json.RawMessage {
	return json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}},` +
		`"extensions":{"` + apps.ExtensionID + `":` + string(apps.ClientCapability()) + `}}`)
}

// ClientCapabilitiesWithoutApps is DefaultClientCapabilities without the MCP
// Apps extension (--no-apps): a server may answer a client without it
// differently, and that answer is worth seeing too.
func ClientCapabilitiesWithoutApps() json.RawMessage {
	return json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`)
}
