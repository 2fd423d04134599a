#!/usr/bin/env bash
# Derives everything that follows from the k8s.io/kubernetes version pinned in
# tools/kube/go.mod:
#   - one `replace k8s.io/<staging> => k8s.io/<staging> v0.<minor>.<patch>` per
#     staging module that k8s.io/kubernetes's own go.mod replaces with
#     ./staging/src/... (it requires them at v0.0.0, which only resolves inside
#     the kubernetes repository);
#   - the go.etcd.io/etcd/server/v3 version of etcd/go.mod (the one Kubernetes
#     requires).
#
# Usage: gen-replaces.sh          rewrite go.mod and etcd/go.mod, then `go mod tidy`
#        gen-replaces.sh --check  exit 1 (and say what differs) when they are stale
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/go/bin"
mode="${1:-write}"

# The version with which the go.mod file $1 requires the module $2 (empty if it does not).
required_version() {
  go mod edit -json "$1" | node -e '
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk));
    process.stdin.on("end", () => {
      const r = (JSON.parse(text).Require ?? []).find((x) => x.Path === process.argv[1]);
      console.log(r?.Version ?? "");
    });' "$2"
}

k8s_version="$(required_version "$here/go.mod" k8s.io/kubernetes)"
if [[ ! "$k8s_version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "gen-replaces: no k8s.io/kubernetes v1.x.y requirement in $here/go.mod" >&2
  exit 1
fi
staging_version="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

# `go mod download -json` prints the path of the module's go.mod in the module cache.
upstream_mod="$(cd "$here" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$k8s_version" |
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
if [[ ! -f "$upstream_mod" ]]; then
  echo "gen-replaces: could not download the go.mod of k8s.io/kubernetes@$k8s_version" >&2
  exit 1
fi

# "k8s.io/api => ./staging/src/k8s.io/api" inside the replace block.
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/src/.*$#\1#p' "$upstream_mod" | sort)
if [[ ${#staging[@]} -eq 0 ]]; then
  echo "gen-replaces: found no ./staging/src replaces in $upstream_mod" >&2
  exit 1
fi
etcd_version="$(required_version "$upstream_mod" go.etcd.io/etcd/server/v3)"

want_replaces="$(for m in "${staging[@]}"; do echo "$m => $m $staging_version"; done)"
have_replaces="$(cd "$here" && go mod edit -json | node -e '
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => {
    for (const r of JSON.parse(text).Replace ?? []) console.log(`${r.Old.Path} => ${r.New.Path} ${r.New.Version ?? ""}`);
  });' | sort)"
have_etcd="$(required_version "$here/etcd/go.mod" go.etcd.io/etcd/server/v3)"

if [[ "$mode" == "--check" ]]; then
  stale=0
  if [[ "$want_replaces" != "$have_replaces" ]]; then
    echo "gen-replaces: the replace block of tools/kube/go.mod does not match k8s.io/kubernetes@$k8s_version:" >&2
    diff <(echo "$have_replaces") <(echo "$want_replaces") >&2 || true
    stale=1
  fi
  if [[ "$have_etcd" != "$etcd_version" ]]; then
    echo "gen-replaces: tools/kube/etcd/go.mod pins etcd $have_etcd, k8s.io/kubernetes@$k8s_version requires $etcd_version" >&2
    stale=1
  fi
  if [[ $stale -ne 0 ]]; then
    echo "gen-replaces: run bash tools/kube/gen-replaces.sh" >&2
    exit 1
  fi
  exit 0
fi

(
  cd "$here"
  # Drop every replace, then add the generated ones, so removed staging modules go too.
  drops=()
  while read -r old _; do
    if [[ -n "$old" ]]; then drops+=("-dropreplace=$old"); fi
  done <<<"$have_replaces"
  adds=()
  for m in "${staging[@]}"; do adds+=("-replace=$m=$m@$staging_version"); done
  go mod edit "${drops[@]}" "${adds[@]}"
  GOFLAGS=-mod=mod go mod tidy
)
(
  cd "$here/etcd"
  go mod edit "-require=go.etcd.io/etcd/server/v3@$etcd_version"
  GOFLAGS=-mod=mod go mod tidy
)
echo "gen-replaces: k8s.io/kubernetes $k8s_version, ${#staging[@]} staging modules at $staging_version, etcd $etcd_version"
