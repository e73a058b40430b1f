# retrylab: `make serve` to work on the site, `make test` for everything.
GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec
# Packages that also run as WebAssembly under Node: the ones the page's
# module is made of.
WASM_PKGS := ./engine/sim/ ./engine/payment/ ./engine/idem/ ./site/widget/

WRANGLER  := build/worker/node_modules/.bin/wrangler

.PHONY: serve site test test-go test-wasm lint deps clean api worker-dev

## serve: build the site and serve it on localhost:8080 with live reload
serve:
	$(GO) run ./cmd/sitegen serve

## site: build the site into public/
site:
	$(GO) run ./cmd/sitegen build

## test: everything: lint, unit tests, WebAssembly tests, browser tests
test: deps lint test-go test-wasm

deps:
	./build/install-deps.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@heavy=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/ | grep -xE 'fmt|html/template|text/template|encoding/json|net/http|net/url|reflect' || true); \
	  if [ -n "$$heavy" ]; then echo "wasm/ must not import: $$heavy"; exit 1; fi

test-go:
	$(GO) test -count=1 ./...

test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" $(WASM_PKGS)

## api: the sandbox payments API on localhost:8787, kept in ./retrylab.db
api:
	$(GO) run ./cmd/retrylab api

## worker-dev: the same API as a Cloudflare Worker, under wrangler dev --local
## with a local D1 database, on localhost:8787
worker-dev: $(WRANGLER)
	./build/worker/build.sh
	cd build/worker && WRANGLER_SEND_METRICS=false ./node_modules/.bin/wrangler d1 execute retrylab --local --file schema.sql >/dev/null
	cd build/worker && WRANGLER_SEND_METRICS=false ./node_modules/.bin/wrangler dev --local

$(WRANGLER): build/worker/package.json build/worker/package-lock.json
	cd build/worker && npm ci --no-audit --no-fund
	touch $@

clean:
	rm -rf public public.* bin build/worker/dist build/worker/.wrangler
