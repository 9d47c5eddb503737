// Package doctor is mcpscope's protocol doctor: an [mcp.Analyzer] that watches
// a client's event stream and explains, frame by frame, what a server gets
// wrong.
//
// A server that breaks the protocol rarely fails loudly. Clients drop what
// they cannot read, and the user sees "No tools available" with nothing to
// go on. The linter names the mistake instead: every [mcp.Diagnostic] it
// produces carries a stable rule id, a severity, the frames concerned, one
// sentence on what is wrong, why it matters (which clients break, and how),
// how to fix it, and the part of the specification it rests on.
//
// The rules come from the catalogue of server mistakes a debugger can detect
// from traffic (mcp-protocol.md §5); [Rules] lists them all. Client profiles
// ([ProfileChatGPT], [ProfileClaude], [ProfileVSCode], [ProfileGemini],
// [ProfileCodex]) add the warnings that matter for one client's known
// behaviour, and, from its view (mcp/doctor/clients), the tools it renames,
// cuts, rewrites, defers or drops.
//
// The linter is incremental and keeps only the state its rules need
// (outstanding requests, the handshake, capabilities, the tools seen,
// cursors, progress tokens), never raw frames, so a long session costs
// bounded memory. Observe is cheap enough to run on the client's publishing
// goroutine, which is what makes detection live: a diagnostic reaches the UI
// in the same batch as the frame that caused it.
package doctor
