#!/usr/bin/env bash
# Measures `mcpscope open` on a big session file: it writes a recording of
# N frames (default 500,000: a handshake, then tools/call requests and
# their answers), opens it in tmux (120x35) and reports when the first
# screen shows, how fast a key is answered while the rest loads, when all
# frames are in, and the process's peak RSS. Needs tmux and python3.
#
# Usage: .ci/open-big.sh MCPSCOPE_BINARY [FRAMES] [--check]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
frames=${2:-500000}
check=${3:-}
dir=$(mktemp -d)
sock=mcpscope-open-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$dir"' EXIT
python3 - "$dir/big.jsonl" "$frames" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
t = lambda i: "2026-11-30T10:%02d:%02d.%06dZ" % ((i // 1000000) % 60, (i // 10000) % 60, (i * 97) % 1000000)
with open(path, "w") as f:
    w = lambda o: f.write(json.dumps(o, separators=(",", ":")) + "\n")
    w({"type": "session", "time": t(0), "format": 1, "mcpscope": "0.1.0-dev", "target": "built-in demo server"})
    w({"type": "state", "time": t(0), "state": "connecting", "detail": "starting stdio transport"})
    init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"0.1.0-dev"}}}'
    res = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"big-server","version":"1.0.0"}}}'
    w({"type": "frame", "time": t(1), "seq": 1, "dir": "out", "transport": "stdio", "kind": "request", "method": "initialize", "id": "1", "size": len(init), "raw": init})
    w({"type": "frame", "time": t(2), "seq": 2, "dir": "in", "transport": "stdio", "kind": "response", "id": "1", "size": len(res), "raw": res, "replyTo": 1, "latencyMs": 1})
    w({"type": "handshake", "time": t(2), "era": "legacy", "offered": "2025-11-25", "protocolVersion": "2025-11-25", "serverInfo": {"name": "big-server", "version": "1.0.0"}, "capabilities": {"tools": {}}, "durationMs": 1})
    w({"type": "state", "time": t(2), "state": "ready", "detail": "legacy era, protocol 2025-11-25"})
    seq = 3
    while seq <= n:
        i = seq // 2 + 1
        req = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":1}}}' % (i, i)
        w({"type": "frame", "time": t(seq), "seq": seq, "dir": "out", "transport": "stdio", "kind": "request", "method": "tools/call", "id": str(i), "size": len(req), "raw": req})
        resp = '{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"{\\"sum\\":%d}"}],"structuredContent":{"sum":%d}}}' % (i, i + 1, i + 1)
        w({"type": "frame", "time": t(seq + 1), "seq": seq + 1, "dir": "in", "transport": "stdio", "kind": "response", "id": str(i), "size": len(resp), "raw": resp, "replyTo": seq, "latencyMs": 0.5})
        seq += 2
PY
size=$(du -m "$dir/big.jsonl" | cut -f1)
tmux -L "$sock" new-session -d -s o -x 120 -y 35 "$bin open --theme dark $dir/big.jsonl"
python3 - "$sock" "$(basename "$bin")" "$frames" "$size" "$check" <<'PY'
import re, subprocess, sys, time
sock, name, n, size, check = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def cap():
    return subprocess.run(["tmux", "-L", sock, "capture-pane", "-t", "o", "-p"], capture_output=True, text=True).stdout
t0 = time.time()
pid = None
while pid is None and time.time() - t0 < 5:
    out = subprocess.run(["pgrep", "-n", "-x", name[:15]], capture_output=True, text=True).stdout.strip()
    pid = out or None
    time.sleep(0.01)
first = None
while time.time() - t0 < 10:
    if re.search(r"Log · \d+ frames", cap()):
        first = time.time() - t0
        break
    time.sleep(0.01)
if first is None:
    sys.exit("the first screen never showed")
# A key while the rest loads: "g" (top of the log) pauses following.
k0 = time.time()
subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "o", "g"])
while "paused" not in cap() and time.time() - k0 < 5:
    time.sleep(0.005)
key = time.time() - k0
frames_seen, last = 0, None
while time.time() - t0 < 120:
    m = re.search(r"Log · (\d+) frames", cap())
    frames_seen = int(m.group(1)) if m else 0
    if frames_seen >= n:
        last = time.time() - t0
        break
    time.sleep(0.1)
k1 = time.time()
subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "o", "G"])
while "following" not in cap() and time.time() - k1 < 5:
    time.sleep(0.005)
key2 = time.time() - k1
hwm = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM"))
print(f"file: {n} frames, {size} MB")
print(f"first screen after {first * 1000:.0f} ms (limit 1000 ms)")
print(f"a key while loading answered in {key * 1000:.0f} ms")
print(f"all {frames_seen} frames in after {last if last else float('nan'):.1f} s" if last else f"only {frames_seen} frames in after 120 s")
print(f"a key after loading answered in {key2 * 1000:.0f} ms")
print(f"peak RSS {hwm / 1024:.0f} MB (limit 300 MB)")
if check == "--check":
    bad = []
    if first > 1.0: bad.append("first screen")
    if key > 1.0 or key2 > 1.0: bad.append("key latency")
    if hwm / 1024 > 300: bad.append("RSS")
    if not last: bad.append("not all frames loaded")
    if bad: sys.exit("FAILED: " + ", ".join(bad))
PY
