#!/usr/bin/env bash
# Renders docs/apps.png, the picture in docs/apps.md: a real MCP App's view
# as mcpscope's host rendered it, beside the rows its bridge left in the
# session. It builds mcpscope, runs check --apps --record --screenshots on
# @modelcontextprotocol/server-basic-vanillajs (installed by .ci/run into
# .ci/npm), exports the session's view rows, and has headless Chromium
# draw the two side by side.
#
#   docs/apps-screenshot.sh            # rewrites docs/apps.png
#   docs/apps-screenshot.sh OUT.png    # writes elsewhere
#
# Needs Go, node, chromium and the .ci/npm servers. Times differ run to run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/docs/apps.png}
server=$top/.ci/npm/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$top" && go build -o "$work/mcpscope" .)
"$work/mcpscope" check --apps --record "$work/s.jsonl" --screenshots "$work/shots" -- node "$server" --stdio >/dev/null
"$work/mcpscope" export "$work/s.jsonl" --format md |
	sed -n 's/^- `\(+[^`]*\)` \(.*\)$/\1  \2/p' |
	sed 's/&/\&amp;/g; s/</\&lt;/g' >"$work/rows.txt"

cat >"$work/page.html" <<HTML
<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#1e1e24;color:#ddd;font:13px/1.5 monospace;display:flex;gap:16px;padding:16px}
img{width:560px;border:1px solid #444}
pre{margin:0;white-space:pre-wrap;width:620px}
h3{margin:0 0 8px;font:bold 13px sans-serif;color:#9ab}
</style></head><body>
<div><h3>the view (mcpscope's host page, headless Chromium)</h3><img src="shots/get-time.png"></div>
<div><h3>its rows in the session (kind:app)</h3><pre>$(cat "$work/rows.txt")</pre></div>
</body></html>
HTML
sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(--no-sandbox)
chromium --headless=new "${sandbox[@]}" --disable-gpu --hide-scrollbars --window-size=1250,520 \
	--user-data-dir="$work/profile" --screenshot="$out" "file://$work/page.html" 2>/dev/null
echo "wrote $out"
