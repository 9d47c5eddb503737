#!/usr/bin/env python3
"""An MCP server on stdio with one tool, "big", whose result is a text of
$HUGE_MB megabytes (20 by default) in 80-byte lines, or of JSON when
$HUGE_JSON is set; when $HUGE_STAMP names a file, the time the response
was written goes there with the response's size in bytes (.ci/huge-tui.sh)."""
import json, os, sys, time
MB = int(os.environ.get("HUGE_MB", "20"))
def text():
    if os.environ.get("HUGE_JSON"):
        rows, size, i = [], 0, 0
        while size < MB << 20:
            r = '{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true}' % (i, i, i % 100)
            rows.append(r); size += len(r) + 1; i += 1
        return "[" + ",".join(rows) + "]"
    lines, size, i = [], 0, 0
    while size < MB << 20:
        l = "line %07d: the quick brown fox jumps over the lazy dog, again and again" % i
        lines.append(l); size += len(l) + 1; i += 1
    return "\n".join(lines)
BIG = json.dumps({"content": [{"type": "text", "text": text()}]})
def send(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    req = json.loads(line)
    m = req.get("method")
    if "id" not in req:
        continue
    if m == "initialize":
        res = {"protocolVersion": req["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "huge", "version": "1"}}
    elif m == "tools/list":
        res = {"tools": [{"name": "big", "description": "A huge result.", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        line = '{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(req["id"]), BIG)
        send(line)
        if os.environ.get("HUGE_STAMP"):
            with open(os.environ["HUGE_STAMP"], "w") as f:
                f.write("%.6f %d" % (time.time(), len(line) + 1))
        continue
    else:
        res = {}
    send(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": res}))
