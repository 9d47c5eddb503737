// Package mcp is mcpscope's protocol client: it speaks the Model Context
// Protocol to one server and reports everything that crosses the wire.
//
// It differs from an SDK client in one way that shapes the whole package: a
// debugger must keep the exact bytes of every message and survive servers that
// break the rules. So every message in or out becomes a [Frame] holding its raw
// bytes, parsed only to classify and correlate it; a malformed line is a Frame
// of kind [KindInvalid], never an error that ends the connection.
//
// The pieces:
//
//   - [Transport] carries raw JSON-RPC payloads (see [StdioTransport]).
//   - [Client] numbers frames, correlates requests and responses, applies
//     timeouts and cancellation, answers the server's pings and hands the
//     server's other requests to a [Handler].
//   - [Client.Connect] performs the handshake of the chosen [Era]: legacy
//     (initialize), modern (server/discover with per-request _meta) or auto (a
//     visible probe).
//   - Everything the client sees is published, in order and without loss, on
//     the channel returned by [Client.Events].
//
// This package imports no UI code; the terminal UI and the headless commands
// are both its users.
package mcp
