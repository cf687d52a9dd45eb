# porchbot — `make help` lists the targets.
GO       ?= go
BIN      ?= bin/porchbot
PKGS     ?= ./...
BENCH    ?= .
export GOTOOLCHAIN ?= local

.DEFAULT_GOAL := help

IMAGE    ?= ghcr.io/porchbot/porchbot:$(VERSION)

.PHONY: help build run test test-short bench lint demo clean image

help: ## this list
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X main.version=$(VERSION) -X main.revision=$(REVISION)

build: ## build bin/porchbot, a static binary (as the image's) stamped with `git describe` and the commit (porchbot version)
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/porchbot

image: ## build the container image ghcr.io/porchbot/porchbot:<git describe> (IMAGE=…; Dockerfile: static binary, CA certificates, non-root)
	docker build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMAGE) .

run: build ## run the bot; with no GitHub App credentials it runs against the embedded local forge
	./$(BIN) serve $(ARGS)

test: ## run every test (unit, forge end-to-end, payload fidelity) with the race detector
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || command -v headless-shell >/dev/null || echo "make test: no Chromium on PATH: the catalog's browser tests (TestCatalogInBrowser) are SKIPPED (README: browser tests)"
	$(GO) test -race -count=1 -parallel 4 -timeout 30m $(PKGS)

test-short: ## unit and golden tests, no end-to-end scenarios, browser or run of kpt itself, and no race detector (-short): run before every commit, `make test` before a push
	$(GO) test -short -count=1 -timeout 10m $$($(GO) list $(PKGS) | grep -v '/bot/e2e$$')

bench: ## benchmarks with their ratios: webhook ingress (vs signature check), render (vs the kyaml floor and kpt; peak memory of limits and attacks, docs/limits.md), API calls and git cache reads per lifecycle step (the sessions' snapshot vs reading through), one publish's update pull requests in 200 repositories (public, then a private fleet), one variant over 200 repositories (new downstreams, then updates), the 3-way merge (vs the kyaml floor of reading its three trees and writing the result, and vs kpt pkg update), package index rebuild (1,000 packages, 10,000 tags), the resync of 100 and 1,000 quiet repositories (counted REST calls per pass, wall time, heap per repository), validation of 1,000 resources (schemas, a Gatekeeper template set) in process vs kpt running the function as exec, a function image's first pull vs its cached runs, one rollout planning pass over 10,000 downstreams in 10 waves (vs decoding its record); every one runs, and a missed target fails the run at the end
	@failed=""; \
	run() { n=$$1; shift; echo "== $$n"; "$$@" || failed="$$failed $$n"; }; \
	run ingress $(GO) test -run '^$$' -bench 'WebhookIngress|SignatureVerify' -benchtime 20000x -count=1 ./bot/ingress/; \
	run render $(GO) test -run '^$$' -bench 'RenderVsFloor|KptExecVsRender' -benchtime 5x -count=1 -timeout 30m ./internal/render/; \
	run api-calls $(GO) test -run '^$$' -bench 'LifecycleAPICalls' -benchtime 1x -count=1 ./bot/e2e/; \
	run update-fanout $(GO) test -run '^$$' -bench 'UpdateFanout' -benchtime 1x -count=1 -timeout 30m ./bot/e2e/; \
	run variant-fanout $(GO) test -run '^$$' -bench 'VariantFanout' -benchtime 1x -count=1 -timeout 30m ./bot/e2e/; \
	run peak-memory $(GO) test -run '^$$' -bench 'PeakMemory' -benchtime 1x -count=1 -timeout 30m ./internal/render/; \
	run index $(GO) test -run '^$$' -bench 'IndexRebuild' -benchtime 1x -count=1 ./internal/index/; \
	run resync-scale $(GO) test -run '^$$' -bench 'ResyncScale' -benchtime 1x -count=1 -timeout 30m ./bot/e2e/; \
	run catalog $(GO) test -run '^$$' -bench 'CatalogFirstByte' -benchtime 20x -count=1 ./bot/catalog/; \
	run update-merge $(GO) test -run '^$$' -bench 'UpdateVsKpt' -benchtime 5x -count=1 -timeout 30m ./internal/update/; \
	run validate $(GO) test -run '^$$' -bench 'ValidateVsKptExec' -benchtime 3x -count=1 -timeout 30m ./internal/render/; \
	run function-images $(GO) test -run '^$$' -bench 'PullFirstAndCached' -benchtime 5x -count=1 ./internal/fnimage/; \
	run rollout-plan $(GO) test -run '^$$' -bench 'RolloutPlan' -benchtime 5x -count=1 ./internal/rollout/; \
	if [ -n "$$failed" ]; then echo "make bench: missed targets in:$$failed"; exit 1; fi

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

demo: ## the narrated package lifecycle on the embedded forge, no account needed (ARGS=--keep: explore it afterwards)
	$(GO) run ./cmd/porchbot demo $(ARGS)

clean: ## remove build output and the local data directory
	rm -rf bin .data
