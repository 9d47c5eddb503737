package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

func (c *Client) runHandshake(ctx context.Context) (*Handshake, error) {
	switch c.opts.Era {
	case EraModern:
		return c.modernHandshake(ctx, c.opts.ProtocolVersion, false)
	case EraAuto:
		return c.autoHandshake(ctx)
	default:
		return c.legacyHandshake(ctx, "")
	}
}

// legacyHandshake: initialize → result → notifications/initialized.
func (c *Client) legacyHandshake(ctx context.Context, probeOutcome string) (*Handshake, error) {
	offered := c.opts.ProtocolVersion
	if offered == "" || IsModernVersion(offered) {
		offered = LatestLegacyVersion
	}
	params, err := json.Marshal(map[string]any{
		"protocolVersion": offered,
		"capabilities":    c.opts.Capabilities,
		"clientInfo":      c.opts.ClientInfo,
	})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// The spec forbids cancelling initialize, so a timeout here sends nothing.
	resp, err := c.call(ctx, MethodInitialize, params, callOpts{noCancel: true})
	if err != nil {
		return nil, handshakeCallError(c.transport.Name(), MethodInitialize, err)
	}
	var res struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, &HandshakeError{Reason: "the initialize result is not an object with the expected fields", Err: err}
	}
	if res.ProtocolVersion == nil {
		return nil, &HandshakeError{Reason: "the initialize result has no protocolVersion"}
	}
	answered := *res.ProtocolVersion
	if !IsLegacyVersion(answered) {
		return nil, &HandshakeError{Reason: fmt.Sprintf(
			"the server answered protocolVersion %q to mcpscope's offer of %q, and mcpscope does not speak %q (it speaks %s); try --protocol-version with one the server supports",
			answered, offered, answered, strings.Join(LegacyVersions, ", "))}
	}
	hs := &Handshake{
		Era:                EraLegacy,
		OfferedVersion:     offered,
		ProtocolVersion:    answered,
		ClientCapabilities: c.opts.Capabilities,
		ClientInfo:         *c.opts.ClientInfo,
		ServerCapabilities: res.Capabilities,
		Instructions:       res.Instructions,
		Result:             resp.Result,
		ProbeOutcome:       probeOutcome,
		Duration:           time.Since(start),
	}
	// A malformed serverInfo is kept raw in Result; the lint rules report it.
	_ = json.Unmarshal(res.ServerInfo, &hs.ServerInfo)
	if err := c.Notify(ctx, NotifyInitialized, nil); err != nil {
		return nil, &HandshakeError{Reason: "could not send notifications/initialized", Err: err}
	}
	return hs, nil
}

func handshakeCallError(transport, method string, err error) error {
	question := "is this an MCP server speaking stdio?"
	if transport != "stdio" {
		question = "is this URL an MCP endpoint, over " + TransportLabel(transport) + "?"
	}
	var rpcErr *RPCError
	var le *LocalError
	switch {
	case errors.As(err, &rpcErr):
		return &HandshakeError{Reason: "the server answered " + method + " with an error", Err: rpcErr}
	case errors.As(err, &le) && le.Kind == SignInFailed:
		return &HandshakeError{Reason: "the sign-in failed during " + method, Err: le}
	case errors.As(err, &le) && le.Kind == Unmatched:
		return &HandshakeError{Reason: le.Err.Error(), Err: le}
	case errors.As(err, &le) && le.Kind == Timeout:
		return &HandshakeError{Reason: fmt.Sprintf("no answer to %s within %s (%s)", method, le.Elapsed.Round(time.Millisecond), question), Err: le}
	case errors.As(err, &le) && le.Err != nil:
		return &HandshakeError{Reason: "the connection ended during " + method, Err: le}
	}
	return &HandshakeError{Reason: method + " failed", Err: err}
}

// modernMeta is the _meta every modern request carries.
func (c *Client) modernMeta(version string) json.RawMessage {
	m := map[string]any{
		MetaProtocolVersion:    version,
		MetaClientCapabilities: c.opts.Capabilities,
		MetaClientInfo:         c.opts.ClientInfo,
	}
	if c.opts.LogLevel != "" {
		m[MetaLogLevel] = c.opts.LogLevel
	}
	b, _ := json.Marshal(m)
	return b
}

func (c *Client) setModern(meta json.RawMessage) {
	c.mu.Lock()
	c.modern, c.meta = meta != nil, meta
	c.mu.Unlock()
}

// discoverResult is the part of a DiscoverResult mcpscope reads.
type discoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      json.RawMessage            `json:"capabilities"`
	Instructions      string                     `json:"instructions"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

// modernHandshake sends server/discover with the modern _meta. When the
// server answers UnsupportedProtocolVersion with a list holding a modern
// version mcpscope speaks, it retries once with that version.
func (c *Client) modernHandshake(ctx context.Context, version string, probe bool) (*Handshake, error) {
	if version == "" || !IsModernVersion(version) {
		version = LatestModernVersion
	}
	start := time.Now()
	co := callOpts{probe: probe, noCancel: probe}
	if probe {
		co.timeout = c.opts.ProbeTimeout
	}
	for attempt := 0; ; attempt++ {
		meta := c.modernMeta(version)
		c.setModern(meta)
		resp, err := c.call(ctx, MethodServerDiscover, json.RawMessage(`{}`), co)
		if err != nil {
			c.setModern(nil)
			var rpcErr *RPCError
			if errors.As(err, &rpcErr) && rpcErr.Code == CodeUnsupportedProtocolVersion && attempt == 0 {
				var data struct {
					Supported []string `json:"supported"`
				}
				_ = json.Unmarshal(rpcErr.Data, &data)
				if v := pickModern(data.Supported); v != "" && v != version {
					version = v
					continue
				}
				return nil, &HandshakeError{Reason: fmt.Sprintf("the server does not support %s and offers %v; mcpscope speaks %s in the modern era", version, data.Supported, strings.Join(ModernVersions, ", ")), Err: rpcErr}
			}
			return nil, handshakeCallError(c.transport.Name(), MethodServerDiscover, err)
		}
		var res discoverResult
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			c.setModern(nil)
			return nil, &HandshakeError{Reason: "the server/discover result is not an object with the expected fields", Err: err}
		}
		hs := &Handshake{
			Era:                EraModern,
			OfferedVersion:     version,
			ProtocolVersion:    version,
			ClientCapabilities: c.opts.Capabilities,
			ClientInfo:         *c.opts.ClientInfo,
			ServerCapabilities: res.Capabilities,
			Instructions:       res.Instructions,
			Result:             resp.Result,
			SupportedVersions:  res.SupportedVersions,
			Meta:               meta,
			Duration:           time.Since(start),
		}
		if si, ok := res.Meta[MetaServerInfo]; ok {
			_ = json.Unmarshal(si, &hs.ServerInfo)
		}
		if len(res.SupportedVersions) > 0 && !slices.Contains(res.SupportedVersions, version) {
			v := pickModern(res.SupportedVersions)
			if v == "" {
				c.setModern(nil)
				return nil, &HandshakeError{Reason: fmt.Sprintf("the server supports %v, none of which mcpscope speaks in the modern era (%s)", res.SupportedVersions, strings.Join(ModernVersions, ", "))}
			}
			hs.ProtocolVersion = v
			c.setModern(c.modernMeta(v))
			hs.Meta = c.modernMeta(v)
		}
		return hs, nil
	}
}

func pickModern(supported []string) string {
	best := ""
	for _, v := range supported {
		if IsModernVersion(v) && v > best {
			best = v
		}
	}
	return best
}

// autoHandshake is the visible probe of mcp-protocol.md §1.3: server/discover
// first; a result or a recognised modern error means modern; any other
// error, or silence, means legacy.
func (c *Client) autoHandshake(ctx context.Context) (*Handshake, error) {
	hs, err := c.modernHandshake(ctx, c.opts.ProtocolVersion, true)
	if err == nil {
		hs.ProbeOutcome = "server/discover answered: modern era"
		return hs, nil
	}
	var he *HandshakeError
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) && rpcErr.Code == CodeUnsupportedProtocolVersion {
		return nil, err // a modern server: no fallback, per the spec
	}
	if c.Err() != nil {
		return nil, err
	}
	outcome := "server/discover failed, falling back to initialize (legacy era)"
	if errors.As(err, &he) {
		outcome = "probe: " + he.Reason + "; fell back to initialize (legacy era)"
	}
	return c.legacyHandshake(ctx, outcome)
}

// TransportLabel names a transport (its Name()) for people.
func TransportLabel(name string) string {
	switch name {
	case "http":
		return "Streamable HTTP"
	case "sse":
		return "HTTP+SSE"
	case "websocket":
		return "WebSocket"
	}
	return name
}
