#!/usr/bin/env bash
# Measures the real TUI under a flood: mcpscope runs in tmux (120x35) on a
# server that sends 50,000 notifications right after the handshake; the
# script reports when all frames are on screen (after the first, and after
# the server wrote the last one), the CPU time mcpscope spent, how long a
# key then takes, and the process's peak RSS. Needs tmux and python3;
# .ci/run reports it for 200,000.
#
# Usage: .ci/flood-tui.sh MCPSCOPE_BINARY [N]   (N notifications, 50,000 by default)
set -euo pipefail
export FLOOD_N=${2:-50000}
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
server="$(cd "$(dirname "$0")/.." && pwd)/mcp/mcptest/testdata/flood_server.py"
sock=mcpscope-flood-$$
stamp=$(mktemp)
rm -f "$stamp"
tmux -L "$sock" new-session -d -s f -x 120 -y 35 "FLOOD_N=$FLOOD_N FLOOD_STAMP=$stamp $bin -- python3 $server"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -f "$stamp"' EXIT
python3 - "$sock" "$(basename "$bin")" "$FLOOD_N" "$stamp" <<'PY'
import os, re, subprocess, sys, time
sock, name, N, stamp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def cap():
    return subprocess.run(["tmux", "-L", sock, "capture-pane", "-t", "f", "-p"], capture_output=True, text=True).stdout
def cpu(pid):
    # utime + stime of the process, in seconds
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
pid = None
for _ in range(100):
    out = subprocess.run(["pgrep", "-n", "-x", name[:15]], capture_output=True, text=True).stdout.strip()
    if out:
        pid = out
        break
    time.sleep(0.05)
t0 = time.time(); first = last = None
while time.time() - t0 < 30 + N / 2000:
    m = re.search(r"Log · (\d+) frames", cap())
    n = int(m.group(1)) if m else 0
    if n > 10 and first is None:
        first = time.time()
    if n >= N + 3:
        last = time.time()
        break
    time.sleep(0.01)
if last is None:
    sys.exit(f"the {N} frames never all showed")
cpu_flood = cpu(pid)
k0 = time.time()
subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "f", "g"])
while "paused" not in cap() and time.time() - k0 < 5:
    time.sleep(0.005)
key = time.time() - k0
time.sleep(0.5)
hwm = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM"))
sent = float(open(stamp).read())
print(f"{N + 3} frames on screen {last - first:.2f}s after the first (the server itself takes about that long to write them)")
print(f"the last frame on screen {max(last - sent, 0):.2f}s after the server wrote it (goal 0.3 s; polled every 10 ms)")
print(f"CPU {cpu_flood:.2f}s from start to all frames on screen (goal 1 s)")
print(f"a key after the flood answered in {key * 1000:.0f} ms (limit 1000 ms)")
print(f"peak RSS {hwm / 1024:.1f} MB (limit 100 MB)")
PY
