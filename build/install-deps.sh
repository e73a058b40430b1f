#!/usr/bin/env bash
# Installs what the tests need beyond Go, when it is missing:
#   - Debian's chromium, for the browser tests (chromedp drives it headless);
#   - Node.js, which runs the WebAssembly tests (go_js_wasm_exec).
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || [ -x "${CHROME_PATH:-/nonexistent}" ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "install-deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${need[*]} from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
for cmd in "${need[@]}"; do
  case "$cmd" in nodejs) cmd=node ;; esac
  command -v "$cmd" >/dev/null 2>&1 || { echo "install-deps: $cmd still missing after install" >&2; exit 1; }
done
