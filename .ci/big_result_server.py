#!/usr/bin/env python3
"""An MCP server on stdio with one tool, "big", whose result is a text of
$BIG_BYTES bytes (20,000,000 by default), for .ci/peers.sh."""
import json, os, sys
N = int(os.environ.get("BIG_BYTES", "20000000"))
def send(m):
    sys.stdout.write(json.dumps(m, separators=(",", ":")) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    m, i = req.get("method"), req.get("id")
    if m == "initialize":
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": req["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "big", "version": "1"}}})
    elif m == "tools/list":
        send({"jsonrpc": "2.0", "id": i, "result": {"tools": [{"name": "big", "description": "a big text", "inputSchema": {"type": "object"}}]}})
    elif m == "tools/call":
        text = ("0123456789abcdef" * (N // 16 + 1))[:N]
        send({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": text}]}})
    elif i is not None:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
