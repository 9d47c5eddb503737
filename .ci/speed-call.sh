#!/usr/bin/env bash
# Measures, side by side in one run, the wall time of
#   1. a bare shell client doing the MCP handshake and tools/list by hand
#      (the floor: the server's own start-up and answer),
#   2. mcpscope call --method tools/list,
#   3. the official Inspector CLI (npx @modelcontextprotocol/inspector --cli ... --method tools/list),
# all against @modelcontextprotocol/server-everything over stdio, and prints
# the median of N runs of each and the ratios.
#
# Usage: .ci/speed-call.sh MCPSCOPE_BINARY NODE_PREFIX [N] [--check]   (N alternating runs; 21 gives a steady median)
#   NODE_PREFIX is a folder where server-everything and the inspector are
#   installed (node_modules/ inside). With --check, exits 1 unless mcpscope
#   is within 1.2x of the bare client and at least 5x faster than the
#   Inspector CLI.
set -euo pipefail
MCPSCOPE=$1
PREFIX=$2
N=${3:-7}
CHECK=${4:-}
SE="$PREFIX/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

now() { date +%s%N; }

bare() {
	coproc SRV { exec node "$SE" 2>/dev/null; }
	local line
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' >&"${SRV[1]}"
	while read -r line <&"${SRV[0]}"; do case $line in *'"id":1'*) break ;; esac; done
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&"${SRV[1]}"
	while read -r line <&"${SRV[0]}"; do case $line in *'"id":2'*) break ;; esac; done
	kill "$SRV_PID" 2>/dev/null || true
	wait "$SRV_PID" 2>/dev/null || true
}

mcpscope_call() { "$MCPSCOPE" call --method tools/list -- node "$SE" >/dev/null 2>&1; }

inspector() { (cd "$PREFIX" && npx --no-install @modelcontextprotocol/inspector --cli node "$SE" --method tools/list >/dev/null 2>&1); }

# ms NAME: runs NAME once and prints its wall time in milliseconds.
ms() {
	local t0 t1
	t0=$(now)
	"$1"
	t1=$(now)
	echo $(((t1 - t0) / 1000000))
}

# median: the median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Warm the page cache so the first measured run is not a cold start.
bare
mcpscope_call

# The bare client and mcpscope alternate, so that drift in the machine's
# load (and in Node's start-up) hits both alike; the Inspector, which is
# several times slower, runs fewer times.
bare_times=() mcpscope_times=() inspector_times=()
for ((i = 0; i < N; i++)); do
	bare_times+=("$(ms bare)")
	mcpscope_times+=("$(ms mcpscope_call)")
	if ((i % 2 == 0)); then inspector_times+=("$(ms inspector)"); fi
done
b=$(printf '%s\n' "${bare_times[@]}" | median)
m=$(printf '%s\n' "${mcpscope_times[@]}" | median)
ins=$(printf '%s\n' "${inspector_times[@]}" | median)
r1=$(awk -v m="$m" -v b="$b" 'BEGIN {printf "%.2f", m/b}')
r2=$(awk -v m="$m" -v i="$ins" 'BEGIN {printf "%.1f", i/m}')
echo "tools/list against server-everything, median of $N alternating runs (the Inspector: ${#inspector_times[@]} runs):"
echo "  bare shell client      ${b} ms"
echo "  mcpscope call          ${m} ms   (${r1}x the bare client; limit 1.2x)"
echo "  inspector --cli        ${ins} ms   (mcpscope is ${r2}x faster; needs 5x)"
if [ "$CHECK" = "--check" ]; then
	awk -v r1="$r1" -v r2="$r2" 'BEGIN {exit !(r1 <= 1.2 && r2 >= 5)}' || { echo "speed check FAILED"; exit 1; }
	echo "speed check ok"
fi
