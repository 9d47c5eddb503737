package tap

import (
	"encoding/json"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// deriver learns from the watched frames what a session file records
// besides frames: the handshake the client made and the lists it was
// given. The recorder writes these entries, so a tap's session file reads
// like one mcpscope recorded itself.
type deriver struct {
	hsReq *mcp.Frame     // the client's initialize or server/discover
	pages map[string]int // list method -> pages of the listing under way
	items map[string][]json.RawMessage
}

func (d *deriver) frame(f *mcp.Frame) []mcp.Event {
	switch {
	case f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest && (f.Method == mcp.MethodInitialize || f.Method == mcp.MethodServerDiscover):
		req := *f
		req.Raw = append([]byte(nil), f.Raw...) // f.Raw is the recorder's spool
		d.hsReq = &req
	case f.Dir != mcp.Inbound || f.Kind != mcp.KindResponse || f.ReplyTo == 0:
	case d.hsReq != nil && f.ReplyTo == d.hsReq.Seq:
		hs := handshakeOf(d.hsReq, f)
		d.hsReq = nil
		if hs == nil {
			return nil
		}
		return []mcp.Event{mcp.HandshakeEvent{Time: f.Time, Handshake: hs, ClientSession: f.ClientSession},
			mcp.StateEvent{Time: f.Time, State: mcp.StateReady, Detail: hs.Era.String() + " era, protocol " + hs.ProtocolVersion + " (the client's handshake)"}}
	default:
		l, ok := mcp.LookupList(f.ReplyToMethod)
		if !ok {
			return nil
		}
		var page map[string]json.RawMessage
		var items []json.RawMessage
		if json.Unmarshal(result(f.Raw), &page) != nil || json.Unmarshal(page[l.ItemsKey], &items) != nil {
			return nil
		}
		if d.pages == nil {
			d.pages, d.items = map[string]int{}, map[string][]json.RawMessage{}
		}
		d.pages[l.Method]++
		d.items[l.Method] = append(d.items[l.Method], items...)
		var cursor string
		_ = json.Unmarshal(page["nextCursor"], &cursor)
		if cursor != "" {
			return nil // the client may ask for the next page
		}
		n, all := d.pages[l.Method], d.items[l.Method]
		delete(d.pages, l.Method)
		delete(d.items, l.Method)
		return []mcp.Event{mcp.ListEvent{Time: f.Time, Method: l.Method, Pages: n, Items: all}}
	}
	return nil
}

func result(raw []byte) json.RawMessage {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Result
}

// handshakeOf rebuilds the handshake from the client's request and the
// server's answer; nil when the answer cannot be read.
func handshakeOf(req, resp *mcp.Frame) *mcp.Handshake {
	var rq struct {
		Params struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    json.RawMessage            `json:"capabilities"`
			ClientInfo      mcp.Implementation         `json:"clientInfo"`
			Meta            map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req.Raw, &rq)
	res := result(resp.Raw)
	var rs struct {
		ProtocolVersion   string                     `json:"protocolVersion"`
		Capabilities      json.RawMessage            `json:"capabilities"`
		ServerInfo        mcp.Implementation         `json:"serverInfo"`
		Instructions      string                     `json:"instructions"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(res, &rs) != nil {
		return nil
	}
	hs := &mcp.Handshake{Era: mcp.EraLegacy, OfferedVersion: rq.Params.ProtocolVersion, ProtocolVersion: rs.ProtocolVersion,
		ClientCapabilities: rq.Params.Capabilities, ClientInfo: rq.Params.ClientInfo, ServerCapabilities: rs.Capabilities,
		ServerInfo: rs.ServerInfo, Instructions: rs.Instructions, Result: res, SupportedVersions: rs.SupportedVersions,
		Duration: resp.Latency}
	if req.Method == mcp.MethodServerDiscover {
		hs.Era = mcp.EraModern
		meta := rq.Params.Meta
		var v string
		_ = json.Unmarshal(meta[mcp.MetaProtocolVersion], &v)
		hs.OfferedVersion, hs.ProtocolVersion = v, v
		hs.ClientCapabilities = meta[mcp.MetaClientCapabilities]
		_ = json.Unmarshal(meta[mcp.MetaClientInfo], &hs.ClientInfo)
		if si, ok := rs.Meta[mcp.MetaServerInfo]; ok {
			_ = json.Unmarshal(si, &hs.ServerInfo)
		}
		hs.Meta, _ = json.Marshal(meta)
	}
	return hs
}

// ProfileFor picks the doctor's client profile from the client's
// clientInfo: the client's documented quirks are the ones that matter for
// the conversation it had.
func ProfileFor(info mcp.Implementation) doctor.Profile {
	switch id := clients.For(info); id {
	case clients.Claude, clients.ChatGPT, clients.VSCode, clients.Gemini, clients.Codex, clients.OpenCode, clients.Copilot:
		return doctor.Profile(id)
	}
	return doctor.ProfileGeneric // Cursor has no doctor rules of its own
}

// profileForRequest reads the clientInfo of an initialize or
// server/discover request.
func profileForRequest(f *mcp.Frame) (mcp.Implementation, doctor.Profile) {
	hs := handshakeOf(f, &mcp.Frame{Raw: []byte(`{"result":{}}`)})
	if hs == nil {
		return mcp.Implementation{}, doctor.ProfileGeneric
	}
	return hs.ClientInfo, ProfileFor(hs.ClientInfo)
}
