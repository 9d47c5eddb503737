#!/usr/bin/env bash
# Installs the OpenID provider of the OAuth sign-in test (cli/oauth_op_test.go)
# into .ci/oauth/bin: the zitadel/oidc v3.52.0 example OP
# (github.com/zitadel/oidc/v3/example/server), fetched through the Go module
# proxy and built in a module of its own (.ci/oauth/op), so mcpscope's go.mod
# and go.sum stay as they are. The resource server it protects, the go-sdk's
# examples/auth/server, comes from the go-sdk mcpscope already requires; the
# test builds it with its addresses, which the example sets in variables.
# Usage: .ci/oauth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$PWD/.ci/oauth"
mkdir -p "$dir/bin" "$dir/op"
(
	cd "$dir/op"
	[ -f go.mod ] || go mod init ci.invalid/oauth-op >/dev/null 2>&1
	GOFLAGS=-mod=mod go get github.com/zitadel/oidc/v3@v3.52.0 >/dev/null 2>&1
	GOFLAGS=-mod=mod go build -o "$dir/bin/zitadel-op" github.com/zitadel/oidc/v3/example/server
)
echo "OpenID provider installed in $dir/bin"
