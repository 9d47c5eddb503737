#!/usr/bin/env bash
# Writes the config files that the real clients write, as goldens for
# mcp/tap's install tests: Claude Code, Gemini CLI, Codex, opencode and
# Cline CLI, installed by
# .ci/run into .ci/clients (MCPSCOPE_CLIENTS may name their bin directory),
# each run with a throwaway HOME and no network (its API on a closed
# loopback port, its telemetry off; `unshare -rn` too when the system
# allows it).
#
#   mcp/tap/testdata/install/clients.sh         (OUT=DIR writes them there)
#
# *.client.* are the files as the client wrote them after `mcp add`;
# *.rewritten.* the same files after `mcpscope tap install --all` and then
# the client's own `mcp add` of another server, which rewrites the file.
# The values that change at every run (Claude's machineID and first start
# time, the project's directory) are replaced by fixed ones. Review the
# diff before committing; TestGoldensAreWhatTheClientsWrite checks that
# the clients still write these.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-$PWD/mcp/tap/testdata/install}
bin=${MCPSCOPE_CLIENTS:-$PWD/.ci/clients/node_modules/.bin}
for c in claude gemini codex opencode cline; do
	[ -x "$bin/$c" ] || { echo "no $bin/$c: run the clients step of .ci/run first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/mcpscope-clients.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpscope" .
tapcmd=/usr/local/bin/mcpscope
export HOME=$work/home PATH="$bin:$PATH"
mkdir -p "$HOME" "$work/project"
# Nothing leaves the machine: the APIs on a closed port, no telemetry.
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
	DISABLE_ERROR_REPORTING=1 ANTHROPIC_BASE_URL=http://127.0.0.1:9 ANTHROPIC_API_KEY=none \
	GEMINI_API_KEY=none GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 GEMINI_TELEMETRY_ENABLED=false \
	OPENAI_API_KEY=none OPENAI_BASE_URL=http://127.0.0.1:9 CODEX_HOME=$HOME/.codex NO_UPDATE_NOTIFIER=1 \
	OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_SHARE=1 \
	CLINE_TELEMETRY_DISABLED=1 XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share
run() { if unshare -rn true 2>/dev/null; then unshare -rn "$@"; else "$@"; fi; }
cd "$work/project"

# Claude Code: user scope, the default local scope (projects[DIR]), an
# HTTP server, a server without args; and the project scope (.mcp.json).
run claude mcp add -s user weather -- node /srv/weather/index.js --units "metric & imperial" >/dev/null
run claude mcp add files -- npx -y @modelcontextprotocol/server-filesystem /tmp >/dev/null
run claude mcp add -s user --transport http remote https://example.com/mcp >/dev/null
run claude mcp add -s user bare -- /usr/local/bin/srv >/dev/null
run claude mcp add -s project memory -- npx -y @modelcontextprotocol/server-memory >/dev/null
fix() { sed -i -e 's/"machineID": "[0-9a-f]*"/"machineID": "0000000000000000000000000000000000000000000000000000000000000000"/' \
	-e 's/"firstStartTime": "[^"]*"/"firstStartTime": "2026-12-01T00:00:00.000Z"/' \
	-e "s#$work/project#/home/user/project#g" "$1"; }
cp "$HOME/.claude.json" "$out/claude_code.client.json" && fix "$out/claude_code.client.json"
cp .mcp.json "$out/claude_code_project.client.json"
"$work/mcpscope" tap install --config "$HOME/.claude.json" --all --command "$tapcmd" >/dev/null
run claude mcp add -s user other -- python3 -m other_server >/dev/null
cp "$HOME/.claude.json" "$out/claude_code.rewritten.json" && fix "$out/claude_code.rewritten.json"

# Gemini CLI: the user's settings.json, with a comment (it keeps them).
mkdir -p "$HOME/.gemini"
printf '{\n  // telemetry off: nothing leaves the machine\n  "telemetry": {"enabled": false},\n  "privacy": {"usageStatisticsEnabled": false}\n}\n' >"$HOME/.gemini/settings.json"
run gemini mcp add -s user weather node /srv/weather/index.js --units "metric & imperial" >/dev/null
run gemini mcp add -s user files npx -y @modelcontextprotocol/server-filesystem /tmp -e API_KEY=xyz >/dev/null
run gemini mcp add -s user -t http remote https://example.com/mcp >/dev/null
cp "$HOME/.gemini/settings.json" "$out/gemini.client.json"
"$work/mcpscope" tap install --config "$HOME/.gemini/settings.json" --all --command "$tapcmd" >/dev/null
run gemini mcp add -s user other python3 -m other_server >/dev/null
cp "$HOME/.gemini/settings.json" "$out/gemini.rewritten.json"

# Codex: a config.toml written by hand first (comments, a server), then
# servers added by codex.
mkdir -p "$HOME/.codex"
printf '# my Codex settings\nmodel = "gpt-test"  # the model\n\n[mcp_servers.docs]\ncommand = "uvx"   # written by hand\nargs = ["mcp-docs", "--root", "/srv/docs"]\n\n[mcp_servers.docs.env]\nTOKEN = "abc"\n' >"$HOME/.codex/config.toml"
run codex mcp add weather --env UNITS=metric -- node /srv/weather/index.js --units "metric & imperial" >/dev/null 2>&1
run codex mcp add bare -- /usr/local/bin/srv >/dev/null 2>&1
run codex mcp add remote --url https://example.com/mcp >/dev/null 2>&1
cp "$HOME/.codex/config.toml" "$out/codex.client.toml"
"$work/mcpscope" tap install --config "$HOME/.codex/config.toml" --all --command "$tapcmd" >/dev/null
run codex mcp add other -- python3 -m other_server >/dev/null 2>&1
cp "$HOME/.codex/config.toml" "$out/codex.rewritten.toml"

# opencode: its user file (opencode.jsonc), one list for the command and
# its args.
run opencode mcp add weather --env UNITS=metric -- node /srv/weather/index.js --units "metric & imperial" </dev/null >/dev/null 2>&1
run opencode mcp add bare -- /usr/local/bin/srv </dev/null >/dev/null 2>&1
run opencode mcp add remote --url https://example.com/mcp </dev/null >/dev/null 2>&1
cp "$HOME/.config/opencode/opencode.jsonc" "$out/opencode.client.jsonc"
"$work/mcpscope" tap install --config "$HOME/.config/opencode/opencode.jsonc" --all --command "$tapcmd" >/dev/null
run opencode mcp add other -- python3 -m other_server </dev/null >/dev/null 2>&1
cp "$HOME/.config/opencode/opencode.jsonc" "$out/opencode.rewritten.jsonc"

# Cline CLI: each server's command and args inside its "transport".
run cline mcp add weather --yes -- node /srv/weather/index.js --units "metric & imperial" </dev/null >/dev/null 2>&1
run cline mcp add bare --yes -- /usr/local/bin/srv </dev/null >/dev/null 2>&1
run cline mcp add remote --transport http --yes https://example.com/mcp </dev/null >/dev/null 2>&1
cp "$HOME/.cline/data/settings/cline_mcp_settings.json" "$out/cline_cli.client.json"
"$work/mcpscope" tap install --config "$HOME/.cline/data/settings/cline_mcp_settings.json" --all --command "$tapcmd" >/dev/null
run cline mcp add other --yes -- python3 -m other_server </dev/null >/dev/null 2>&1
cp "$HOME/.cline/data/settings/cline_mcp_settings.json" "$out/cline_cli.rewritten.json"
echo "wrote $out/*.client.* and *.rewritten.*" >&2
