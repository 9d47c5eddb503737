#!/usr/bin/env bash
# Installs the doctor's real-server corpus (corpus_test.go) into .ci/corpus:
# go-sdk v1.8.0 example servers, built from the module go.mod already pins,
# and mcp-go v1.2.1 example servers, fetched through the Go module proxy,
# into .ci/corpus/bin. The TypeScript SDK servers come from .ci/npm (.ci/run
# installs them, pinned) and are linked in as .ci/corpus/node_modules.
# Usage: .ci/corpus.sh NPM_PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
npm_prefix=${1:?usage: corpus.sh NPM_PREFIX}
corpus="$PWD/.ci/corpus"
mkdir -p "$corpus/bin" "$corpus/mcpgo"
ln -sfn "$npm_prefix/node_modules" "$corpus/node_modules"

for ex in everything hello memory sequentialthinking sse; do
	go build -o "$corpus/bin/gosdk-$ex" "github.com/modelcontextprotocol/go-sdk/examples/server/$ex"
done

# mcp-go is not a dependency of mcpscope: build its examples in a module of
# their own, so go.mod and go.sum stay as they are.
(
	cd "$corpus/mcpgo"
	[ -f go.mod ] || go mod init corpus.invalid/mcpgo >/dev/null 2>&1
	GOFLAGS=-mod=mod go get github.com/mark3labs/mcp-go@v1.2.1 >/dev/null 2>&1
	for ex in everything typed_tools structured_input_and_output conformance; do
		GOFLAGS=-mod=mod go build -o "$corpus/bin/mcpgo-$ex" "github.com/mark3labs/mcp-go/examples/$ex"
	done
)
echo "corpus installed in $corpus"
