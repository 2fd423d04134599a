#!/usr/bin/env bash
# Builds the helm CLI from the helm.sh/helm/v3 module pinned in tools/helm into
#   ${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}/helm-<helm version>/bin/helm
# and writes a stamp there. When the stamp matches the pinned module and the binary is
# present, it prints "up to date" and does nothing.
# Run it as `bash tools/helm/build.sh`; see tools/helm/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null; then
  echo "helm:build: go is not on PATH (nor in /usr/local/go/bin)" >&2
  exit 1
fi

# go.sum is committed: never rewrite it during a build.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"
export CGO_ENABLED=0

version_of() { # <module path>
  (cd "$here" && go list -m -f '{{.Version}}' "$1")
}
helm_version="$(version_of helm.sh/helm/v3)"
client_go_version="$(version_of k8s.io/client-go)"

cache="${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}"
bin="$cache/helm-$helm_version/bin"
stamp_file="$bin/.stamp"

stamp="$(
  echo "helm $helm_version"
  echo "client-go $client_go_version"
  go env GOVERSION
  cd "$here" && sha256sum go.mod go.sum build.sh
)"

if [[ -x "$bin/helm" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  echo "helm:build: up to date ($bin/helm: helm $helm_version)"
  exit 0
fi

mkdir -p "$bin"
rm -f "$stamp_file"

# The -X flags of helm's Makefile: the version `helm version` prints, and the Kubernetes
# version that `helm template` and `helm lint` assume (client-go v0.N => v1.N).
k8s_minor="${client_go_version#v0.}"
k8s_minor="${k8s_minor%%.*}"
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in pkg/lint/rules pkg/chartutil; do
  ldflags+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$k8s_minor"
done

start=$SECONDS
echo "helm:build: helm (helm.sh/helm/v3/cmd/helm $helm_version) ..."
(cd "$here" && go build -trimpath -ldflags="$ldflags" -o "$bin/.helm.tmp" helm.sh/helm/v3/cmd/helm)
mv "$bin/.helm.tmp" "$bin/helm"
echo "$stamp" >"$stamp_file"
echo "helm:build: built $bin/helm in $((SECONDS - start))s"
