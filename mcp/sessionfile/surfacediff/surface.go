// Package surfacediff compares what a client sees of two MCP servers (or
// two versions of one): the protocol version, the capabilities, and the
// tools, resources, templates and prompts with their schemas. Each change
// is classed breaking (a client written against A may fail against B: a
// removed tool, a new required property, a narrowed type or enum) or
// compatible (a new optional property, a description change), so that
// `mcpscope diff` can gate a release.
//
// A surface comes from a session file (the last handshake and the last
// complete list of each kind) or from a live connection.
package surfacediff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
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
}

// FromEvents takes the surface from a session's events: the last
// handshake, and the last complete list of each kind after it.
func FromEvents(label string, events []mcp.Event) (*Surface, error) {
	s := &Surface{Label: label, Lists: map[string][]json.RawMessage{}}
	seen := false
	for _, ev := range events {
		switch e := ev.(type) {
		case mcp.HandshakeEvent:
			seen = true
			h := e.Handshake
			s.Server, s.Era, s.ProtocolVersion, s.Capabilities = h.ServerInfo, h.Era.String(), h.ProtocolVersion, h.ServerCapabilities
			s.Lists = map[string][]json.RawMessage{} // a reconnect starts over
		case mcp.ListEvent:
			if e.Err == nil {
				s.Lists[e.Method] = e.Items
			}
		}
	}
	if !seen {
		return nil, fmt.Errorf("%s: the session has no completed handshake, so there is no surface to compare", label)
	}
	return s, nil
}

// Live connects with c (not yet connected), lists everything the server
// declares and closes nothing: the caller closes c.
func Live(ctx context.Context, label string, c *mcp.Client) (*Surface, error) {
	hs, err := c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Surface{Label: label, Server: hs.ServerInfo, Era: hs.Era.String(), ProtocolVersion: hs.ProtocolVersion,
		Capabilities: hs.ServerCapabilities, Lists: map[string][]json.RawMessage{}}
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
