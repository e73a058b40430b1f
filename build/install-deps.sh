#!/usr/bin/env bash
# Installs what the tests need beyond Go, when it is missing:
#   - Debian's chromium, for the browser tests (chromedp drives it headless);
#   - Node.js, which runs the WebAssembly tests (go_js_wasm_exec) and wrangler;
#   - brotli;
#   - python3, which runs the bench's reference scripts in cmd/bench's test
#     that they agree with the engine;
#   - Debian's postgresql, whose server binaries the PostgreSQL store's tests
#     start in a temporary folder (no cluster of the package's own is used);
#   - wrangler, pinned in build/worker/package.json, into build/worker/node_modules,
#     for the worker's test under wrangler dev --local;
#   - axe-core, pinned in build/axe/package.json, into build/axe/node_modules,
#     for the accessibility test of every page (cmd/sitegen);
#   - ESLint, pinned in build/lint/package.json, into build/lint/node_modules,
#     which make lint runs on the site's JavaScript;
#   - Pagefind, pinned in build/search/package.json, into
#     build/search/node_modules, which every build of the site runs to
#     index it for search (make site installs it on its own too).
# Safe to run again: it installs nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || [ -x "${CHROME_PATH:-/nonexistent}" ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v brotli >/dev/null 2>&1 || need+=(brotli)
command -v python3 >/dev/null 2>&1 || need+=(python3)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null 2>&1 || need+=(postgresql)

if [ ${#need[@]} -gt 0 ]; then
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
    case "$cmd" in
      nodejs) command -v node >/dev/null 2>&1 ;;
      postgresql) compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ;;
      *) command -v "$cmd" >/dev/null 2>&1 ;;
    esac || { echo "install-deps: $cmd still missing after install" >&2; exit 1; }
  done
fi

# wrangler 4 needs Node.js 20 or later. Debian 13 ships 20; Debian 12's own
# nodejs is 18, and this script reaches no other source of Node: say so
# plainly rather than fail later inside wrangler.
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "install-deps: Node.js $(node --version) is too old for wrangler 4 (the worker's test): it needs 20 or later, as Debian 13 ships" >&2
  exit 1
fi

# wrangler, at the version package-lock.json pins, unless it is there.
want=$(sed -n 's/.*"wrangler": "\([0-9.]*\)".*/\1/p' build/worker/package.json)
have=$(sed -n 's/^  "version": "\([0-9.]*\)".*/\1/p' build/worker/node_modules/wrangler/package.json 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -x build/worker/node_modules/.bin/wrangler ]; then
  echo "install-deps: installing wrangler $want into build/worker/node_modules (npm ci)" >&2
  (cd build/worker && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  build/worker/node_modules/.bin/wrangler --version >/dev/null
fi

# axe-core, at the version package-lock.json pins, unless it is there.
want=$(sed -n 's/.*"axe-core": "\([0-9.]*\)".*/\1/p' build/axe/package.json)
have=$(sed -n 's/^  "version": "\([0-9.]*\)".*/\1/p' build/axe/node_modules/axe-core/package.json 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -f build/axe/node_modules/axe-core/axe.min.js ]; then
  echo "install-deps: installing axe-core $want into build/axe/node_modules (npm ci)" >&2
  (cd build/axe && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  [ -f build/axe/node_modules/axe-core/axe.min.js ]
fi

# Pagefind, at the version package-lock.json pins, unless it is there: the
# site's build (make site, Netlify's, serve's) indexes public/ with it.
want=$(sed -n 's/.*"pagefind": "\([0-9.]*\)".*/\1/p' build/search/package.json)
have=$(sed -n 's/^  "version": "\([0-9.]*\)".*/\1/p' build/search/node_modules/pagefind/package.json 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -x build/search/node_modules/.bin/pagefind ]; then
  echo "install-deps: installing Pagefind $want into build/search/node_modules (npm ci)" >&2
  (cd build/search && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  build/search/node_modules/.bin/pagefind --version >/dev/null
fi

# ESLint, at the version package-lock.json pins, unless it is there:
# make lint runs it on the site's JavaScript (eslint.config.js).
want=$(sed -n 's/.*"eslint": "\([0-9.]*\)".*/\1/p' build/lint/package.json)
have=$(sed -n 's/^  "version": "\([0-9.]*\)".*/\1/p' build/lint/node_modules/eslint/package.json 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -x build/lint/node_modules/.bin/eslint ]; then
  echo "install-deps: installing ESLint $want into build/lint/node_modules (npm ci)" >&2
  (cd build/lint && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  build/lint/node_modules/.bin/eslint --version >/dev/null
fi
