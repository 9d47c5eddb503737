#!/usr/bin/env bash
# Measures how long the TUI takes to end against a server that does
# everything to hold it up: it stops reading stdin after the handshake,
# ignores stdin's end and ignores SIGTERM and SIGINT (the fake server's
# "deaf,ignore-term"). For each way out (q, ctrl+c, SIGTERM, SIGINT) it
# starts mcpscope in tmux (120x35), waits for the handshake, ends it and
# reports the time until the process is gone, and whether the server
# outlived it. Needs tmux; the goal is under 1 s.
#
# Usage: .ci/quit-tui.sh MCPSCOPE_BINARY
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(mktemp -d)
sock=mcpscope-quit-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"; rm -rf "$dir"' EXIT
# The fake server lives in the cli package's test binary.
(cd "$(dirname "$0")/.." && go test -c -o "$dir/fake.test" ./cli)
for how in q ctrl+c SIGTERM SIGINT; do
	pidfile=$dir/server-$RANDOM.pid
	tmux -L "$sock" new-session -d -s quit -x 120 -y 35 \
		"$bin -e MCPSCOPE_FAKE_SERVER=deaf,ignore-term -e MCPSCOPE_FAKE_PIDFILE=$pidfile -- $dir/fake.test; sleep 30"
	for _ in $(seq 100); do [ -s "$pidfile" ] && break; sleep 0.05; done
	sleep 1 # the handshake, then tools/list waits for an answer that never comes
	pane=$(tmux -L "$sock" list-panes -t quit -F '#{pane_pid}')
	pid=$(pgrep -P "$pane" | head -1)
	start=$(date +%s%N)
	case $how in
	q) tmux -L "$sock" send-keys -t quit q ;;
	ctrl+c) tmux -L "$sock" send-keys -t quit C-c ;;
	SIGTERM) kill -TERM "$pid" ;;
	SIGINT) kill -INT "$pid" ;;
	esac
	while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; do sleep 0.005; done
	end=$(date +%s%N)
	server=$(cat "$pidfile")
	alive=no
	if kill -0 "$server" 2>/dev/null; then alive=yes; kill -KILL "$server"; fi
	printf '%-8s ended after %4d ms; server outlived it: %s\n' "$how" $(((end - start) / 1000000)) "$alive"
	tmux -L "$sock" kill-session -t quit
done
