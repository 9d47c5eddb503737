package apps

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// CSP is the origins a view declares it needs (_meta.ui.csp). A nil *CSP
// means none was declared: the host applies DefaultCSP.
type CSP struct {
	// ConnectDomains widen connect-src (fetch, XHR, WebSocket).
	ConnectDomains []string
	// ResourceDomains widen script-, style-, img-, font- and media-src.
	ResourceDomains []string
	// FrameDomains widen frame-src (nested iframes).
	FrameDomains []string
	// BaseURIDomains widen base-uri.
	BaseURIDomains []string
}

// Permissions is the browser features a view asks for
// (_meta.ui.permissions); hosts may grant them with the iframe's allow.
type Permissions struct {
	Camera, Microphone, Geolocation, ClipboardWrite bool
	// Unknown lists keys the spec does not define, sorted.
	Unknown []string
}

// Names lists the features asked for as the spec spells them, in the
// spec's order, then the unknown ones.
func (p Permissions) Names() []string {
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{p.Camera, "camera"}, {p.Microphone, "microphone"}, {p.Geolocation, "geolocation"}, {p.ClipboardWrite, "clipboardWrite"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return append(out, p.Unknown...)
}

// ResourceMeta is what a ui:// resource asks of its host, from its
// _meta.ui (or, for a ChatGPT widget without one, the openai/widget* keys).
type ResourceMeta struct {
	// CSP is nil when the resource declares none.
	CSP *CSP
	// Permissions is nil when the resource asks for none.
	Permissions *Permissions
	// Domain is the dedicated sandbox origin asked for ("" when absent).
	Domain string
	// PrefersBorder is nil when the resource leaves the border to the host.
	PrefersBorder *bool
	// FromOpenAI is set when the values came from the openai/widget* keys.
	FromOpenAI bool
	// Raw is _meta.ui exactly as sent (nil when absent).
	Raw json.RawMessage
	// Malformed says which keys had the wrong type, in the order read.
	Malformed []string
}

// Declared reports whether the resource said anything to its host.
func (m ResourceMeta) Declared() bool {
	return m.CSP != nil || m.Permissions != nil || m.Domain != "" || m.PrefersBorder != nil || m.Raw != nil
}

// ParseResource reads a resources/list entry or a resources/read content
// item as sent (both carry _meta).
func ParseResource(entry json.RawMessage) ResourceMeta {
	m, has := jsonview.Member(entry, "_meta")
	if !has || string(m) == "null" {
		return ResourceMeta{}
	}
	if _, isObj := object(m); !isObj {
		return ResourceMeta{Malformed: []string{"_meta is not an object"}}
	}
	return ParseResourceMeta(m)
}

// ParseResourceMeta reads a resource's _meta object.
func ParseResourceMeta(metaRaw json.RawMessage) ResourceMeta {
	var m ResourceMeta
	meta, ok := object(metaRaw)
	if !ok {
		return m
	}
	if raw, has := meta[MetaUI]; has {
		m.Raw = raw
		m.parseUI(raw)
		return m
	}
	m.parseOpenAI(meta)
	return m
}

func (m *ResourceMeta) parseUI(raw json.RawMessage) {
	ui, ok := object(raw)
	if !ok {
		m.Malformed = append(m.Malformed, "_meta.ui is not an object")
		return
	}
	if r, has := ui["csp"]; has {
		m.CSP = m.parseCSP(r, "_meta.ui.csp", [4]string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"})
	}
	if r, has := ui["permissions"]; has {
		m.parsePermissions(r)
	}
	if r, has := ui["domain"]; has {
		if s, good := str(r); good {
			m.Domain = s
		} else {
			m.Malformed = append(m.Malformed, "_meta.ui.domain is not a string")
		}
	}
	if r, has := ui["prefersBorder"]; has {
		if b, good := boolean(r); good {
			m.PrefersBorder = &b
		} else {
			m.Malformed = append(m.Malformed, "_meta.ui.prefersBorder is not a boolean")
		}
	}
}

// parseOpenAI reads ChatGPT's spelling of the same facts.
func (m *ResourceMeta) parseOpenAI(meta map[string]json.RawMessage) {
	if r, has := meta[MetaWidgetCSP]; has {
		m.FromOpenAI = true
		m.CSP = m.parseCSP(r, `_meta["openai/widgetCSP"]`, [4]string{"connect_domains", "resource_domains", "frame_domains", "base_uri_domains"})
	}
	if r, has := meta[MetaWidgetDomain]; has {
		m.FromOpenAI = true
		if s, good := str(r); good {
			m.Domain = s
		} else {
			m.Malformed = append(m.Malformed, `_meta["openai/widgetDomain"] is not a string`)
		}
	}
	if r, has := meta[MetaWidgetPrefersBorder]; has {
		m.FromOpenAI = true
		if b, good := boolean(r); good {
			m.PrefersBorder = &b
		} else {
			m.Malformed = append(m.Malformed, `_meta["openai/widgetPrefersBorder"] is not a boolean`)
		}
	}
}

// parseCSP reads a CSP object whose four lists are spelled keys (connect,
// resource, frame, base URI); where names the object in Malformed.
func (m *ResourceMeta) parseCSP(raw json.RawMessage, where string, keys [4]string) *CSP {
	obj, ok := object(raw)
	if !ok {
		m.Malformed = append(m.Malformed, where+" is not an object")
		return nil
	}
	var c CSP
	for i, dst := range []*[]string{&c.ConnectDomains, &c.ResourceDomains, &c.FrameDomains, &c.BaseURIDomains} {
		r, has := obj[keys[i]]
		if !has {
			continue
		}
		list, good := stringList(r)
		if !good {
			m.Malformed = append(m.Malformed, where+"."+keys[i]+" is not an array of strings")
		}
		*dst = list
	}
	return &c
}

func (m *ResourceMeta) parsePermissions(raw json.RawMessage) {
	obj, ok := object(raw)
	if !ok {
		m.Malformed = append(m.Malformed, "_meta.ui.permissions is not an object")
		return
	}
	var p Permissions
	for k := range obj {
		switch k {
		case "camera":
			p.Camera = true
		case "microphone":
			p.Microphone = true
		case "geolocation":
			p.Geolocation = true
		case "clipboardWrite":
			p.ClipboardWrite = true
		default:
			p.Unknown = append(p.Unknown, k)
		}
	}
	sort.Strings(p.Unknown)
	m.Permissions = &p
}

// Effective is what a host applies to a view: the resources/read content
// item's _meta.ui when it declares anything, else the listing's, as the
// spec asks hosts to read it.
func Effective(listing, content ResourceMeta) ResourceMeta {
	if content.Declared() {
		return content
	}
	return listing
}

// IsUIURI reports whether uri is a ui:// resource.
func IsUIURI(uri string) bool {
	return strings.HasPrefix(uri, URIScheme)
}
