#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok
# from the Go modules pinned in tools/kube into
#   ${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}/<k8s version>/bin/
# and writes a stamp there. When the stamp matches the pinned modules and all
# five binaries are present, it prints "up to date" and does nothing.
# Run it as `npm run kube:build`; see tools/kube/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null; then
  echo "kube:build: go is not on PATH (nor in /usr/local/go/bin)" >&2
  exit 1
fi

# The replace block and the etcd version are derived from the k8s.io/kubernetes
# version; refuse to build from a stale go.mod.
bash "$here/gen-replaces.sh" --check

version_of() { # <module dir> <module path>
  (cd "$1" && go list -mod=readonly -m -f '{{.Version}}' "$2")
}
k8s_version="$(version_of "$here" k8s.io/kubernetes)"
etcd_version="$(version_of "$here/etcd" go.etcd.io/etcd/server/v3)"
kwok_version="$(version_of "$here/kwok" sigs.k8s.io/kwok)"

cache="${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}"
bin="$cache/$k8s_version/bin"
stamp_file="$bin/.stamp"
binaries=(kube-apiserver kube-controller-manager kube-scheduler etcd kwok)

# The stamp names the versions and hashes everything that decides the output.
stamp="$(
  echo "kubernetes $k8s_version"
  echo "etcd $etcd_version"
  echo "kwok $kwok_version"
  go env GOVERSION
  cd "$here" && sha256sum go.mod go.sum etcd/go.mod etcd/go.sum kwok/go.mod kwok/go.sum build.sh
)"

all_present=1
for b in "${binaries[@]}"; do [[ -x "$bin/$b" ]] || all_present=0; done
if [[ $all_present -eq 1 && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  echo "kube:build: up to date ($bin: kubernetes $k8s_version, etcd $etcd_version, kwok $kwok_version)"
  exit 0
fi

mkdir -p "$bin"
rm -f "$stamp_file"

k8s_x() { # -X flags for the version that k8s.io/kubernetes's hack/lib/version.sh would stamp
  local minor="${k8s_version#v1.}"
  minor="${minor%%.*}"
  local key val
  for kv in "gitVersion=$k8s_version" gitMajor=1 "gitMinor=$minor" gitTreeState=clean; do
    key="${kv%%=*}" val="${kv#*=}"
    printf -- "-X k8s.io/client-go/pkg/version.%s=%s -X k8s.io/component-base/version.%s=%s " "$key" "$val" "$key" "$val"
  done
}

export CGO_ENABLED=0
# go.sum is committed: never rewrite it during a build.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"

build() { # <name> <module dir> <package> <module version> [extra ldflags]
  local name="$1" dir="$2" pkg="$3" version="$4" extra="${5:-}"
  local start=$SECONDS
  echo "kube:build: $name ($pkg $version) ..."
  (cd "$dir" && go build -trimpath -ldflags="-s -w $extra" -o "$bin/.$name.tmp" "$pkg")
  mv "$bin/.$name.tmp" "$bin/$name"
  echo "kube:build: $name done in $((SECONDS - start))s"
}

total_start=$SECONDS
build kube-apiserver "$here" k8s.io/kubernetes/cmd/kube-apiserver "$k8s_version" "$(k8s_x)"
build kube-controller-manager "$here" k8s.io/kubernetes/cmd/kube-controller-manager "$k8s_version" "$(k8s_x)"
build kube-scheduler "$here" k8s.io/kubernetes/cmd/kube-scheduler "$k8s_version" "$(k8s_x)"
build etcd "$here/etcd" go.etcd.io/etcd/server/v3 "$etcd_version"
build kwok "$here/kwok" sigs.k8s.io/kwok/cmd/kwok "$kwok_version"

echo "$stamp" >"$stamp_file"
echo "kube:build: built ${binaries[*]} into $bin in $((SECONDS - total_start))s"
