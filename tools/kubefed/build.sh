#!/usr/bin/env bash
# Builds KubeFed v0.10.0's hyperfed, with controller-manager, webhook and kubefedctl
# as symlinks to it (as in KubeFed's image), and the version-oracle of this
# directory, from the sigs.k8s.io/kubefed module pinned in tools/kubefed into
#   ${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}/kubefed-<version>/bin/
# copies what KubeFed's Helm chart installs besides its templates into
# kubefed-<version>/chart/, and writes a stamp. When the stamp matches and
# everything is present, it prints "up to date" and does nothing.
# Run it as `npm run kubefed:build`; see tools/kubefed/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null; then
  echo "kubefed:build: go is not on PATH (nor in /usr/local/go/bin)" >&2
  exit 1
fi

# go.sum is committed: never rewrite it during a build.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"
export CGO_ENABLED=0

module_field() { # <format> <module path>
  (cd "$here" && go list -m -f "$1" "$2")
}
kubefed_version="$(module_field '{{.Version}}' sigs.k8s.io/kubefed)"
reflect2_version="$(module_field '{{.Version}}' github.com/modern-go/reflect2)"

cache="${KUBEFED_KUBE_CACHE:-$HOME/.cache/kubefed-kube}"
root="$cache/kubefed-$kubefed_version"
bin="$root/bin"
chart="$root/chart"
# <file in chart/> <its path in the module>: the CRDs of KubeFed's own types, the CRDs
# of the default federated types and their FederatedTypeConfigs (a template without
# any template syntax, so applied as it is).
chart_files=(
  core-crds.yaml charts/kubefed/charts/controllermanager/crds/crds.yaml
  federated-type-crds.yaml charts/kubefed/crds/crds.yaml
  federatedtypeconfigs.yaml charts/kubefed/templates/federatedtypeconfig.yaml
)
stamp_file="$bin/.stamp"
binaries=(hyperfed controller-manager webhook kubefedctl version-oracle)

# The stamp names the versions and hashes everything that decides the output.
stamp="$(
  echo "kubefed $kubefed_version"
  echo "reflect2 $reflect2_version"
  go env GOVERSION
  cd "$here" && sha256sum go.mod go.sum build.sh version-oracle/main.go
)"

all_present=1
for b in "${binaries[@]}"; do [[ -x "$bin/$b" ]] || all_present=0; done
for ((i = 0; i < ${#chart_files[@]}; i += 2)); do [[ -f "$chart/${chart_files[i]}" ]] || all_present=0; done
if [[ $all_present -eq 1 && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  echo "kubefed:build: up to date ($root: kubefed $kubefed_version)"
  exit 0
fi

mkdir -p "$bin"
rm -f "$stamp_file"

# The -X stamps of KubeFed's Makefile (LDFLAG_OPTIONS), so `--version` names the
# release; the build date is the release's (from the module's .info), which keeps
# the binaries reproducible.
# `go list -m` leaves .Dir empty until the module is in the module cache (a cold
# machine): download it first.
(cd "$here" && go mod download sigs.k8s.io/kubefed)
module_dir="$(module_field '{{.Dir}}' sigs.k8s.io/kubefed)"
if [[ -z "$module_dir" || ! -d "$module_dir" ]]; then
  echo "kubefed:build: sigs.k8s.io/kubefed $kubefed_version is not in the module cache after go mod download" >&2
  exit 1
fi
release_time="$(module_field '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' sigs.k8s.io/kubefed)"
version_x=""
for kv in "version=$kubefed_version" gitTreeState=clean "buildDate=$release_time"; do
  version_x+="-X sigs.k8s.io/kubefed/pkg/version.$kv "
done

build() { # <name> <package>
  local name="$1" pkg="$2"
  local start=$SECONDS
  echo "kubefed:build: $name ($pkg) ..."
  (cd "$here" && go build -trimpath -ldflags="-s -w $version_x" -o "$bin/.$name.tmp" "$pkg")
  mv "$bin/.$name.tmp" "$bin/$name"
  echo "kubefed:build: $name done in $((SECONDS - start))s"
}

total_start=$SECONDS
# KubeFed ships one binary that acts as the command its name says (cmd/hyperfed,
# images/kubefed/Dockerfile). Its own cmd/webhook does not run: its main and
# app.Run both call controller-runtime's SetupSignalHandler, and the second call
# panics ("close of closed channel"); hyperfed calls it once.
build hyperfed sigs.k8s.io/kubefed/cmd/hyperfed
for name in controller-manager webhook kubefedctl; do ln -sfn hyperfed "$bin/$name"; done
build version-oracle ./version-oracle

mkdir -p "$chart"
for ((i = 0; i < ${#chart_files[@]}; i += 2)); do
  install -m 0644 "$module_dir/${chart_files[i + 1]}" "$chart/${chart_files[i]}"
done

echo "$stamp" >"$stamp_file"
echo "kubefed:build: built ${binaries[*]} into $bin and the chart's files into $chart in $((SECONDS - total_start))s"
