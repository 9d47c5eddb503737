#!/usr/bin/env bash
# Measures a huge tool result in the real TUI: mcpscope runs in tmux
# (120x35) on a server whose one tool answers with 20 MB of text (or of
# JSON with --json); the script calls it (3, enter, ctrl+s) and reports how
# long after the server wrote the response its first line was on screen,
# mcpscope's CPU time for the call, its peak RSS, and its private memory
# (RssAnon, sampled every 2 ms until 3 s after the result showed): idle
# before the call, at its peak, and the peak's increment over idle.
# Needs tmux and python3; not run by CI.
#
# Usage: .ci/huge-tui.sh MCPSCOPE_BINARY [MB] [--json]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mb=${2:-20}
json=${3:-}
server="$(cd "$(dirname "$0")/.." && pwd)/mcp/mcptest/testdata/huge_server.py"
sock=mcpscope-huge-$$
stamp=$(mktemp)
rm -f "$stamp"
env=(HUGE_MB="$mb" HUGE_STAMP="$stamp")
[ "$json" = --json ] && env+=(HUGE_JSON=1)
tmux -L "$sock" new-session -d -s h -x 120 -y 35 "${env[*]} $bin --theme dark -- python3 $server"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -f "$stamp"' EXIT
python3 - "$sock" "$(basename "$bin")" "$stamp" "$json" <<'PY'
import os, subprocess, sys, threading, time
sock, name, stamp, js = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
want = "row 0000000" if js == "--json" else "line 0000000"
def cap():
    return subprocess.run(["tmux", "-L", sock, "capture-pane", "-t", "h", "-p"], capture_output=True, text=True).stdout
def keys(*k):
    subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "h", *k])
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
pid = None
t0 = time.time()
while pid is None and time.time() - t0 < 5:
    # The pane's process is mcpscope (the shell execs it); pgrep's newest
    # of that name may be another's.
    p = subprocess.run(["tmux", "-L", sock, "display", "-p", "-t", "h", "#{pane_pid}"], capture_output=True, text=True).stdout.strip()
    try:
        if p and open(f"/proc/{p}/comm").read().strip() == name[:15]:
            pid = p
    except OSError:
        pass
    time.sleep(0.02)
while "Tools · 1" not in cap():
    if time.time() - t0 > 30:
        sys.exit("the tool list never showed:\n" + cap())
    time.sleep(0.05)
time.sleep(0.3)
keys("3"); time.sleep(0.2)
keys("Enter"); time.sleep(0.5)
def anon():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("RssAnon:"):
            return int(l.split()[1])
    return 0
idle = anon()
peak = [idle]
sampling = [True]
def sample():
    while sampling[0]:
        peak[0] = max(peak[0], anon())
        time.sleep(0.002)
sampler = threading.Thread(target=sample)
sampler.start()
c0 = cpu(pid)
keys("C-s")
t1 = time.time()
while want not in cap():
    if time.time() - t1 > 60:
        sys.exit("the result never showed:\n" + cap())
    time.sleep(0.01)
seen = time.time()
used = cpu(pid) - c0
sent, size = open(stamp).read().split()
sent, size = float(sent), int(size)
print(f"{'JSON' if js == '--json' else 'text'} result: first line on screen {seen - sent:.2f}s after the server wrote the response (goal 0.3 s; polled every 10 ms); {seen - t1:.2f}s after ctrl+s")
hwm = next(l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM:"))
print(f"mcpscope CPU for the call {used:.2f}s; peak RSS {int(hwm) / 1024:.1f} MiB")
time.sleep(3)
sampling[0] = False
sampler.join()
print(f"private memory (RssAnon): idle {idle / 1024:.1f} MiB, peak {peak[0] / 1024:.1f} MiB, increment {(peak[0] - idle) / 1024:.1f} MiB = {(peak[0] - idle) * 1024 / size:.2f}x the response line ({size / 2**20:.1f} MiB)")
PY
