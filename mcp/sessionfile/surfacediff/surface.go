// Package surfacediff compares what a client sees of two MCP servers (or
// two versions of one): the protocol version, the capabilities, and the
// tools, resources, templates and prompts with their schemas. Each change
// is classed breaking (a client written against A may fail against B: a
// removed tool, a new required property, a narrowed type or enum) or
// compatible (a new optional property, a description change), so that
// `mcpscope diff` can gate a release.
//
// A surface comes from a session file (its last connection: the handshake
// and the last complete listing of each kind, read from the frames by
// mcp/sessionfile/reading, whatever wrote the file) or from a live
// connection. Each side says which client saw it: a server may offer a
// client what it declared (server-everything lists get-roots-list only to
// a client with roots), so the client's capabilities are compared too.
package surfacediff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/reading"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Surface is what a client sees of a server.
type Surface struct {
	// Label names where the surface came from (a file, a command line).
	Label           string
	Server          mcp.Implementation
	Era             string
	ProtocolVersion string
	Capabilities    json.RawMessage
	// Lists holds the items of each list by list method (tools/list...);
	// a method absent from the map was not listed.
	Lists map[string][]json.RawMessage
	// The client that saw it: what it offered and declared.
	Client             mcp.Implementation
	ClientCapabilities json.RawMessage
	OfferedVersion     string
}

// FromSession takes the surface of a session file's last connection.
func FromSession(s *reading.Session) (*Surface, error) {
	c, err := s.Last()
	if err != nil {
		return nil, fmt.Errorf("%s: %w, so there is no surface to compare", s.Source, err)
	}
	h := c.Handshake
	return &Surface{Label: s.Source, Server: h.ServerInfo, Era: h.Era.String(), ProtocolVersion: h.ProtocolVersion,
		Capabilities: h.ServerCapabilities, Lists: c.Lists, Client: h.ClientInfo, ClientCapabilities: h.ClientCapabilities,
		OfferedVersion: h.OfferedVersion}, nil
}

// FromEvents takes the surface from a session's events (see FromSession).
func FromEvents(label string, events []mcp.Event) (*Surface, error) {
	return FromSession(reading.FromEvents(label, record.Entry{}, events))
}

// ClientOptions sets base to connect as the client that saw s: its era,
// offered version, capabilities and info, so that a live server is listed
// as that client would see it.
func (s *Surface) ClientOptions(base mcp.Options) mcp.Options {
	o := base
	if era, ok := mcp.ParseEra(s.Era); ok {
		o.Era = era
	}
	if s.OfferedVersion != "" {
		o.ProtocolVersion = s.OfferedVersion
	}
	if len(s.ClientCapabilities) > 0 {
		o.Capabilities = s.ClientCapabilities
	}
	if s.Client.Name != "" {
		info := s.Client
		o.ClientInfo = &info
	}
	return o
}

// Live connects with c (not yet connected), lists everything the server
// declares and closes nothing: the caller closes c.
func Live(ctx context.Context, label string, c *mcp.Client) (*Surface, error) {
	hs, err := c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Surface{Label: label, Server: hs.ServerInfo, Era: hs.Era.String(), ProtocolVersion: hs.ProtocolVersion,
		Capabilities: hs.ServerCapabilities, Lists: map[string][]json.RawMessage{}, Client: hs.ClientInfo,
		ClientCapabilities: hs.ClientCapabilities, OfferedVersion: hs.OfferedVersion}
	var errs []error
	for _, d := range mcp.DiscoveryLists() {
		if !hs.HasCapability(d.Capability) {
			continue
		}
		items, _, err := c.ListAll(ctx, d.Method)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.Method, err))
			continue
		}
		s.Lists[d.Method] = items
	}
	return s, errors.Join(errs...)
}
