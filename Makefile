# kvlint's build. Everything here needs only Go.
GO       ?= go
PKGS     := ./...
# Packages whose code runs goroutines (parallel parsing, the runtime):
# tested again under the race detector.
RACE_PKGS := ./parsers/... ./verify/...
FUZZTIME ?= 10s

.PHONY: all build test vet lint bench fuzz clean

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

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# bench runs every Go benchmark; among them the runtime's throughput in simulated tokens
# per second (verify/runtime) and the wall time of `kvlint verify examples/` (cmd/kvlint,
# BenchmarkVerifyExamples: wall-s/op).
bench:
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
	rm -rf bin
