# kvlint's build. Everything here needs only Go.
GO       ?= go
PKGS     := ./...
# Packages whose code runs goroutines (parallel parsing, the runtime, the
# run's file set shared by the parsers):
# tested again under the race detector.
RACE_PKGS := ./parsers/... ./verify/... ./check/... ./suppress/... ./rules/... ./internal/... ./source/...
FUZZTIME ?= 10s

.PHONY: all build test vet lint dist actionlint bench bench-repo bench-verify bench-go fuzz clean

all: build

build:
	$(GO) build -o bin/kvlint ./cmd/kvlint

vet:
	$(GO) vet $(PKGS)

# test runs vet, every Go test (the Rego policy tests run inside ./rules'
# Go tests, through OPA's tester), and the concurrent packages with -race.
test: vet
	$(GO) test -count=1 $(PKGS)
	$(GO) test -count=1 -race $(RACE_PKGS)

# lint is what every change must pass before its tests: gofmt, go vet and
# staticcheck. staticcheck is pinned and run with `go run`, so it needs
# nothing installed beyond Go (the module proxy serves it once, then the
# module cache does).
STATICCHECK_VERSION ?= v0.8.2
lint: vet actionlint
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) $(PKGS)

# actionlint checks the workflows in .github/workflows/ (among them the one
# that runs the local action on examples/); pinned and run like staticcheck.
ACTIONLINT_VERSION ?= v1.7.12
actionlint:
	$(GO) run github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION) -shellcheck= -pyflakes=

# dist builds release archives, kvlint_VERSION_OS_ARCH.tar.gz for linux and
# darwin on amd64 and arm64, and SHA256SUMS beside them in dist/. VERSION is
# the tag being released (CHANGELOG.md, "Versions"); static binaries.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
DIST_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
dist:
	rm -rf dist && mkdir -p dist
	@set -e; for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; name=kvlint_$(VERSION)_$${os}_$${arch}; \
	  echo "building $$name"; mkdir -p dist/$$name; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o dist/$$name/kvlint ./cmd/kvlint; \
	  cp README.md CHANGELOG.md dist/$$name/; \
	  tar -C dist -czf dist/$$name.tar.gz $$name; rm -rf dist/$$name; \
	done
	cd dist && sha256sum *.tar.gz > SHA256SUMS

# bench generates repositories of 5,000 and 50,000 files in a temporary
# directory and measures kvlint check (wall time, peak memory), the
# parse-only floor and conftest on the same Kubernetes files; it prints the
# ratios and writes docs/PERFORMANCE.md. conftest is built once into bin/
# (CONFTEST= skips the comparison). Then the runtime's throughput in
# simulated tokens per second and the wall time of `kvlint verify examples/`.
# Not part of make test.
CONFTEST_VERSION ?= v0.71.1
CONFTEST ?= bin/conftest
BENCH_SIZES ?= 5000,50000
bench: bench-repo bench-verify

bench-repo: build
	@if [ -n "$(CONFTEST)" ] && [ ! -x "$(CONFTEST)" ]; then \
	  echo "building conftest $(CONFTEST_VERSION) into bin/ (once)"; \
	  GOBIN=$(CURDIR)/bin GOFLAGS=-mod=mod $(GO) install github.com/open-policy-agent/conftest@$(CONFTEST_VERSION); \
	fi
	$(GO) build -tags bench -o bin/kvlint-bench ./cmd/kvlint-bench
	bin/kvlint-bench -kvlint bin/kvlint -sizes $(BENCH_SIZES) \
	  $(if $(CONFTEST),-conftest $(CONFTEST) -conftest-version $(CONFTEST_VERSION)) \
	  -command "make bench$(if $(filter-out 5000$(comma)50000,$(BENCH_SIZES)), BENCH_SIZES=$(BENCH_SIZES))"

comma := ,

bench-verify:
	$(GO) test -run='^$$' -bench='^(BenchmarkScenario|BenchmarkVerifyExamples)' ./verify/runtime ./cmd/kvlint

# bench-go runs every Go benchmark; among them the runtime's throughput in
# simulated tokens per second (verify/runtime) and the wall time of `kvlint
# verify examples/` (cmd/kvlint, BenchmarkVerifyExamples: wall-s/op).
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

# fuzz runs every fuzz target briefly; FUZZTIME=60s for a longer run.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin dist
