#!/usr/bin/env bash
# What `npm test` needs besides node_modules, installed when missing (npm runs this as `pretest`):
#   redis-server   Debian's redis-server (tests start private servers when none answers at REDIS_URL)
#   chromium       Debian's chromium (the dashboard's browser tests)
#   fish, zsh      Debian's shells (kubefedctl's completion scripts are loaded into them)
#   helm           built from its Go module into ~/.cache/kubefed-kube (tools/helm/build.sh, cached)
# Debian packages are installed with apt-get when this runs as root (or with sudo); otherwise it
# names what is missing and exits 1. Nothing is installed when everything is present.
# With --demo (npm's `predemo`), only what `npm run demo` needs: redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=false
[ "${1:-}" = "--demo" ] && demo=true

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
$demo || [ -x /usr/bin/chromium ] || missing+=(chromium)
$demo || command -v fish >/dev/null 2>&1 || missing+=(fish)
$demo || command -v zsh >/dev/null 2>&1 || missing+=(zsh)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt=(apt-get)
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    apt=(sudo apt-get)
  else
    echo "test-prereqs: missing ${missing[*]}: install them with 'apt-get install -y ${missing[*]}' (needs root)" >&2
    exit 1
  fi
  echo "test-prereqs: installing ${missing[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  "${apt[@]}" update -qq
  "${apt[@]}" install -y -qq "${missing[@]}" >/dev/null
fi

$demo && exit 0
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  echo "test-prereqs: go is not installed: the helm chart tests need helm built from its Go module (tools/helm/README.md)" >&2
  exit 1
fi
bash tools/helm/build.sh
