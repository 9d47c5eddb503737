#!/usr/bin/env bash
# Builds Jaeger all-in-one v1.75.0 (its v2 binary: an OpenTelemetry
# collector with in-memory storage and the query API) into .ci/bin/jaeger,
# for the OpenTelemetry export's test (cli/otel_jaeger_test.go), which
# starts it on loopback ports of its own. The module lives in .ci/jaeger
# (go.mod with `tool github.com/jaegertracing/jaeger/cmd/jaeger`), so
# mcpscope's go.mod stays as it is. Built once: a binary already there
# for this version is kept. The UI's assets are not in the Go module, so
# the UI shows a placeholder; the test uses the query API.
# Measured on two shared cores: 5.5 minutes with empty module and build
# caches (about 120 MB), 9-25 s with warm caches, nothing when kept.
# Usage: .ci/jaeger.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.75.0
bin="$PWD/.ci/bin/jaeger"
mkdir -p "$PWD/.ci/bin"
if [ -x "$bin" ] && [ "$(cat "$bin.version" 2>/dev/null)" = "$version" ]; then
	echo "Jaeger $version already in $bin"
	exit 0
fi
(
	cd .ci/jaeger
	GOFLAGS="-mod=mod -buildvcs=false" go build -o "$bin.tmp" github.com/jaegertracing/jaeger/cmd/jaeger
)
mv "$bin.tmp" "$bin"
echo "$version" > "$bin.version"
echo "Jaeger $version installed in $bin"
