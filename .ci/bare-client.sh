#!/usr/bin/env bash
# The floor for `call`: a bare shell client as a process of its own. It
# starts the server (the arguments), does the MCP handshake and one request
# by hand, and stops the server with SIGTERM as soon as the answer is in.
# Nothing is checked: this is the least a client can do.
# The request is tools/list, or BARE_REQUEST: a JSON-RPC request with id 2,
# on one line (a tools/call, say).
# Used by .ci/peers.sh (through .ci/peerbench) and .ci/speed-call.sh's logic.
request=${BARE_REQUEST:-'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'}
coproc SRV { exec "$@" 2>/dev/null; }
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' >&"${SRV[1]}"
while read -r line <&"${SRV[0]}"; do case $line in *'"id":1'*) break ;; esac; done
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$request" >&"${SRV[1]}"
while read -r line <&"${SRV[0]}"; do case $line in *'"id":2'*) break ;; esac; done
kill "$SRV_PID" 2>/dev/null || true
wait "$SRV_PID" 2>/dev/null || true
