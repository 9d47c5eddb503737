// Package tap sits between a real MCP client (Claude Desktop, Cursor, VS
// Code, Claude Code...) and a server, copies their traffic byte for byte,
// and lets mcpscope watch it: the same log, panes and doctor as a session
// mcpscope drives itself, on the conversation the real client had.
//
// A tap is built so that it is never in the client's way:
//
//   - The copy is the hot path and does nothing else: bytes read from one
//     side are written to the other at once (no re-encoding, no buffering
//     beyond what one read returned). A copy of each chunk goes to the
//     recorder's queue (a spool: a fixed ring, then a temporary file),
//     which never blocks the copier.
//   - The recorder runs on a SCHED_IDLE thread and holds off while the
//     copiers are busy (up to maxDefer), so a flood's parsing, encoding
//     and garbage collection come after it instead of competing with it.
//   - The recorder classifies the traffic with mcp's own frame code
//     ([mcp.Observer]) and writes it to a session file under
//     ~/.local/state/mcpscope/taps/ (from HOME alone: clients give their
//     servers different environments) in the mcp/sessionfile/record format
//     (environment values redacted). That file is the truth a viewer reads.
//     Next to it, the tap holds its live file locked while it runs: that,
//     not a socket, is what makes a capture live.
//   - The hub is a Unix socket per tap, 0600 in a 0700 directory under
//     $XDG_RUNTIME_DIR (or a per-user temporary directory), named in the
//     live file. It only says
//     "there is more in the file" and "the tap has ended"; a wake-up a slow
//     viewer misses is dropped, and a viewer that attaches late or misses
//     wake-ups reads what it missed from the file. A viewer that is slow,
//     absent or killed changes nothing for the client.
//
// [Source] is the viewer's side: a read-only session.Source over a tap's
// session file (live or finished) that rebuilds the handshake, the lists
// the client saw and the doctor's findings from the frames.
package tap
