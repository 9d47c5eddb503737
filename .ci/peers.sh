#!/usr/bin/env bash
# Measures mcpscope's performance budgets (docs/performance.md), each row
# beside its peers on this machine, and prints the table: call tools/list and
# tools/call, on server-everything and on the demo server, against a bare
# shell client and mcptools; check against call; what the stdio and HTTP
# taps add to each request; the TUI's first screen after exec and its tools
# on screen after the tools/list answer; --version; the idle TUI's private
# memory; a 50,000-notification flood (last frame on screen after it
# arrived, peak private memory); 20 MB and 160 MB JSON results (first
# screen, the private memory each adds). Runs alternate between the tools
# compared; every cell is a median with its spread. A report, not a gate:
# timing on a shared machine is noisy, and a peer that cannot be installed,
# or cannot do what a row measures, is a cell that says why.
#
# The peers, at pinned versions:
#   - the official Inspector 2.12.0 (CLI and TUI), from npm into NODE_PREFIX
#     (.ci/run installs it into .ci/npm);
#   - mcp-tui (standardbeagle) and mcptools (f/mcptools), Go programs built
#     from the Go module proxy into .ci/peers/bin the way the README builds
#     mcpscope (static, -ldflags="-s -w", as release builds usually are).
#     When the proxy does not serve one (mcp-tui, here), its rows say so.
#
# Usage: .ci/peers.sh MCPSCOPE_BINARY NODE_PREFIX [N]   (N runs of each call and TUI start; 11 by default)
# Needs Go, Node, python3 and tmux. Takes about 5 minutes on two cores.
set -uo pipefail
started=$SECONDS
ci=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
prefix=$(cd "$2" && pwd)
n=${3:-11}
peers="$ci/peers"
mkdir -p "$peers/bin"
export GOFLAGS=${GOFLAGS:--buildvcs=false}

MCPTUI_MODULE=github.com/standardbeagle/mcp-tui
MCPTUI_VERSION=v0.0.0-20250726202247-d08e3adf7ddf # its last commit (2025-07-26); it has no release tags
MCPTOOLS_MODULE=github.com/f/mcptools
MCPTOOLS_VERSION=v0.7.1

# install NAME MODULE PACKAGE VERSION: builds PACKAGE of MODULE@VERSION into
# $peers/bin/NAME (in a module of its own, so that `go install`'s look-up of
# the module's newest version, which the proxy may refuse, is not needed);
# prints the binary's path, or nothing and the reason on fd 3.
install() {
	local name=$1 module=$2 package=$3 version=$4 out dir=$peers/build-$1
	if [ -x "$peers/bin/$name" ] && [ "$(cat "$peers/bin/$name.version" 2>/dev/null)" = "$version static" ]; then
		echo "$peers/bin/$name"
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	if out=$(cd "$dir" && go mod init peer >/dev/null 2>&1 &&
		GOFLAGS=-mod=mod timeout 300 go get "$module@$version" 2>&1 &&
		CGO_ENABLED=0 GOFLAGS=-mod=mod timeout 300 go build -ldflags="-s -w" -o "$peers/bin/$name" "$package" 2>&1); then
		echo "$version static" >"$peers/bin/$name.version"
		echo "$peers/bin/$name"
	elif echo "$out" | grep -q '403 Forbidden'; then
		echo "not built: the Go module proxy does not serve $module@$version here" >&3
	else
		echo "not built: $(echo "$out" | grep -v '^go: downloading' | tail -1 | cut -c1-100)" >&3
	fi
}

mcptui=$(install mcp-tui "$MCPTUI_MODULE" "$MCPTUI_MODULE" "$MCPTUI_VERSION" 3>"$peers/mcp-tui.why")
mcptools=$(install mcptools "$MCPTOOLS_MODULE" "$MCPTOOLS_MODULE/cmd/mcptools" "$MCPTOOLS_VERSION" 3>"$peers/mcptools.why")

# A Go hello-world: the floor for start-up.
mkdir -p "$peers/hello"
printf 'package main\n\nfunc main() {}\n' >"$peers/hello/main.go"
printf 'module hello\n\ngo 1.26\n' >"$peers/hello/go.mod"
(cd "$peers/hello" && CGO_ENABLED=0 go build -ldflags="-s -w" -o "$peers/bin/hello" .) || true

(cd "$ci/.." && go build -o "$peers/bin/peerbench" ./.ci/peerbench) || { echo "peers.sh: peerbench does not build"; exit 1; }
"$peers/bin/peerbench" -mcpscope "$bin" -npm "$prefix" -ci "$ci" -n "$n" -hello "$peers/bin/hello" \
	-mcp-tui "$mcptui" -mcp-tui-missing "$(cat "$peers/mcp-tui.why" 2>/dev/null)" \
	-mcptools "$mcptools" -mcptools-missing "$(cat "$peers/mcptools.why" 2>/dev/null)"
status=$?
echo "peers.sh took $((SECONDS - started)) s"
exit $status
