# porchbot — `make help` lists the targets.
GO       ?= go
BIN      ?= bin/porchbot
PKGS     ?= ./...
BENCH    ?= .
export GOTOOLCHAIN ?= local

.DEFAULT_GOAL := help

.PHONY: help build run test bench lint demo clean

help: ## this list
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/porchbot
	$(GO) build -o $(BIN) ./cmd/porchbot

run: build ## run the bot; with no GitHub App credentials it runs against the embedded local forge
	./$(BIN) serve $(ARGS)

test: ## run every test (unit, forge end-to-end, payload fidelity) with the race detector
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

bench: ## benchmarks with their ratios: webhook ingress (vs signature check), render (vs the kyaml floor and kpt; peak memory of limits and attacks, docs/limits.md), API calls per lifecycle step, one publish's update pull requests in 200 repositories; every one runs, and a missed target fails the run at the end
	@failed=""; \
	run() { n=$$1; shift; echo "== $$n"; "$$@" || failed="$$failed $$n"; }; \
	run ingress $(GO) test -run '^$$' -bench 'WebhookIngress|SignatureVerify' -benchtime 20000x -count=1 ./bot/; \
	run render $(GO) test -run '^$$' -bench 'RenderVsFloor|KptExecVsRender' -benchtime 5x -count=1 -timeout 30m ./internal/render/; \
	run api-calls $(GO) test -run '^$$' -bench 'LifecycleAPICalls' -benchtime 1x -count=1 ./internal/e2e/; \
	run update-fanout $(GO) test -run '^$$' -bench 'UpdateFanout' -benchtime 1x -count=1 -timeout 30m ./internal/e2e/; \
	run peak-memory $(GO) test -run '^$$' -bench 'PeakMemory' -benchtime 1x -count=1 -timeout 30m ./internal/render/; \
	run update-merge $(GO) test -run '^$$' -bench 'UpdateVsKpt' -benchtime 3x -count=1 -timeout 30m ./internal/update/; \
	if [ -n "$$failed" ]; then echo "make bench: missed targets in:$$failed"; exit 1; fi

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

demo: ## the narrated package lifecycle on the embedded forge, no account needed (ARGS=--keep: explore it afterwards)
	$(GO) run ./cmd/porchbot demo $(ARGS)

clean: ## remove build output and the local data directory
	rm -rf bin .data
