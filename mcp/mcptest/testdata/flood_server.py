#!/usr/bin/env python3
"""An MCP server on stdio that answers initialize and then floods the client
with 50,000 notifications/message (or $FLOOD_N), for measuring mcpscope
under load (.ci/flood-tui.sh)."""
import json, os, sys, time
N = int(os.environ.get("FLOOD_N", "50000"))
def send(m):
    sys.stdout.write(json.dumps(m) + "\n")
for line in sys.stdin:
    req = json.loads(line)
    if req.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": req["id"], "result": {"protocolVersion": req["params"]["protocolVersion"], "capabilities": {"logging": {}}, "serverInfo": {"name": "flood", "version": "1"}}})
        sys.stdout.flush()
    elif req.get("method") == "notifications/initialized":
        for i in range(N):
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "message %d" % i}})
        sys.stdout.flush()
        if os.environ.get("FLOOD_STAMP"):
            # When the last frame left: the pipe holds at most 64 KiB more
            # than the reader has taken (.ci/flood-tui.sh).
            with open(os.environ["FLOOD_STAMP"], "w") as f:
                f.write("%.6f" % time.time())
        print("flood done", file=sys.stderr, flush=True)
    elif "id" in req:
        send({"jsonrpc": "2.0", "id": req["id"], "result": {}})
        sys.stdout.flush()
