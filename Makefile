# retrylab: `make serve` to work on the site, `make test` for everything,
# `make bench` for the figures (BENCH_QUICK=1 for a run within five minutes).
GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec
# Packages that also run as WebAssembly under Node: every package of ours
# the page's module is made of, as the go command lists them (so a model a
# widget starts to use is tested there without a change here).
WASM_PKGS = $(shell GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/ | grep '^github.com/retrylab/retrylab/' | grep -vx 'github.com/retrylab/retrylab/wasm')

WRANGLER  := build/worker/node_modules/.bin/wrangler
LIGHTHOUSE := bench/node_modules/.bin/lighthouse
# Hugo, the anchor of the bench's generator figures, where go install puts it.
HUGO_VERSION := v0.165.0
HUGO      := $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)/hugo
PAGEFIND  := build/search/node_modules/.bin/pagefind
ESLINT    := build/lint/node_modules/.bin/eslint

.PHONY: serve site test test-go test-wasm lint deps clean bench bench-deps api worker-dev lab

# Where make serve listens: make serve ADDR=localhost:9000.
ADDR      ?= localhost:8080

## serve: build the site and serve it on $(ADDR) (localhost:8080) with live reload
serve: $(PAGEFIND)
	$(GO) run ./cmd/sitegen serve -addr $(ADDR)

## site: build the site into public/ (what Netlify runs), search index included
site: $(PAGEFIND)
	$(GO) run ./cmd/sitegen build

# Pagefind, which the build runs to index public/ for search, at the
# version build/search/package-lock.json pins. Only Node.js is needed, so
# Netlify's build image can run it (install-deps.sh installs it as well).
$(PAGEFIND): build/search/package.json build/search/package-lock.json
	cd build/search && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# ESLint, which make lint runs on the site's JavaScript (eslint.config.js),
# at the version build/lint/package-lock.json pins.
$(ESLINT): build/lint/package.json build/lint/package-lock.json
	cd build/lint && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## test: everything: lint, unit tests, WebAssembly tests, browser tests
test: deps lint test-go test-wasm

deps:
	./build/install-deps.sh

lint: $(ESLINT)
	$(ESLINT) --max-warnings 0 .
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@heavy=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/ | grep -xE 'fmt|html/template|text/template|encoding/json|net/http|net/url|reflect' || true); \
	  if [ -n "$$heavy" ]; then echo "wasm/ must not import: $$heavy"; exit 1; fi
	@impure=$$($(GO) list -deps ./engine/idem/ ./engine/idem/ledger/ | grep -E '^(os|net|database/sql|crypto/rand|math/rand)(/|$$)|/engine/idem/(idemhttp|sqlstore)' || true); \
	  if [ -n "$$impure" ]; then echo "engine/idem and engine/idem/ledger are pure; they must not import: $$impure"; exit 1; fi
	@back=$$($(GO) list -deps ./engine/idem/sqlstore/... | grep -x 'github.com/retrylab/retrylab/engine/idem/idemhttp' || true); \
	  if [ -n "$$back" ]; then echo "the SQL stores must not import the HTTP handler (engine/idem/idemhttp)"; exit 1; fi

# The tests need what deps installs, also under make -j.
test-go test-wasm: | deps

# cmd/sitegen's browser tests (axe on every page, light and dark, among
# them) take longer than go test's default 10 minutes on a busy 2-core
# machine.
test-go:
	$(GO) test -count=1 -timeout 30m ./...

# engine/explore is in no module, but runs there too: its trace hashes,
# the same file the native run checks, hold the two builds to one run of
# every seed.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" $(WASM_PKGS) ./engine/explore/

## api: the sandbox payments API on localhost:8787, kept in ./retrylab.db
api:
	$(GO) run ./cmd/retrylab api

## lab: the guard strategies on a throwaway PostgreSQL (started as the store
## tests start theirs): 20 duplicates, 6 runs each, printed as one table
lab: | deps
	$(GO) run ./internal/lab/labtable

## worker-dev: the same API as a Cloudflare Worker, under wrangler dev --local
## with a local D1 database, on localhost:8787
worker-dev: $(WRANGLER)
	./build/worker/build.sh
	cd build/worker && WRANGLER_SEND_METRICS=false ./node_modules/.bin/wrangler d1 execute retrylab --local --file schema.sql >/dev/null
	cd build/worker && WRANGLER_SEND_METRICS=false ./node_modules/.bin/wrangler dev --local

$(WRANGLER): build/worker/package.json build/worker/package-lock.json
	cd build/worker && npm ci --no-audit --no-fund
	touch $@

## bench: measure size and speed, print one table, write bench/latest.json
## and, as markdown, bench/REPORT.md
bench: bench-deps
	$(GO) run ./cmd/bench

# Chromium and Node.js as for the tests, then Lighthouse into
# bench/node_modules at the version bench/package.json pins, and Hugo
# $(HUGO_VERSION) (several minutes to compile). Without either the bench
# still runs, and its table says why it did not measure what needs it.
bench-deps: deps
	@$(MAKE) --no-print-directory $(LIGHTHOUSE) || \
	  echo "bench-deps: Lighthouse could not be installed; make bench reports it as not measured" >&2
	@$(HUGO) version 2>/dev/null | grep -q 'hugo $(HUGO_VERSION)' || \
	  CGO_ENABLED=0 $(GO) install github.com/gohugoio/hugo@$(HUGO_VERSION) || \
	  echo "bench-deps: Hugo $(HUGO_VERSION) could not be installed; make bench reports it as not measured" >&2

# No lock file: a dependency of Lighthouse asks for another package at
# "latest", which a lock file cannot hold still (npm ci refuses it). The
# scores depend on Lighthouse's own version, which package.json pins.
$(LIGHTHOUSE): bench/package.json
	cd bench && npm install --no-package-lock --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf public public.* bin build/worker/dist build/worker/.wrangler
