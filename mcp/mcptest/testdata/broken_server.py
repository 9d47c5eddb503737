#!/usr/bin/env python3
"""A deliberately broken MCP server on stdio, for trying mcpscope by hand and
for its tests: it prints a banner on stdout, answers initialize without a
serverInfo version, announces a list change it never declared, and lists
tools with broken schemas and names. It still answers enough that a client
that survives it can list and call tools."""
import json
import sys

print("broken-server v0.1 starting up...", flush=True)  # the classic mistake: a banner on stdout
print("broken-server: reading requests from stdin", file=sys.stderr, flush=True)

TOOLS = [
    {"name": "add", "description": "Adds a and b.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
    {"name": "echo tool", "description": "A name with a space.", "inputSchema": {"type": "object"}},
    {"name": "no_schema_type", "description": "inputSchema without type.", "inputSchema": {"properties": {}}},
]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        req = json.loads(line)
    except ValueError:
        print("broken-server: unreadable line", file=sys.stderr, flush=True)
        continue
    method, rid = req.get("method"), req.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": req["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "broken-server"},  # no version: a schema violation
        }})
    elif method == "notifications/initialized":
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})  # never declared
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        args = req.get("params", {}).get("arguments", {})
        if req["params"].get("name") == "add":
            text = str(args.get("a", 0) + args.get("b", 0))
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {"isError": True, "content": [{"type": "text", "text": "no such tool"}]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found: %s" % method}})
