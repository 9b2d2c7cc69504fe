# agentexec. `make test` is what CI runs; it stays under 10 minutes on 2 cores.
GO ?= go
PKGS := ./...
FUZZTIME ?= 20s

.PHONY: build test unit vet fmt-check cross bench fuzz sweep-readonly lint clean

build:
	$(GO) build -o bin/agentexec ./cmd/agentexec

test: fmt-check vet cross unit

unit:
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

cross:
	GOOS=windows $(GO) build ./...
	GOOS=darwin $(GO) build ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# Every fuzz target, each for FUZZTIME (go test -fuzz takes one target at a time).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# The classifier's read-only verdicts checked against the real programs in
# the sandbox (scripts/readonlysweep; half an hour on 2 cores; SWEEP narrows
# it to the programs whose name matches the regexp).
SWEEP ?=
sweep-readonly:
	$(GO) build -o bin/agentexec ./cmd/agentexec
	$(GO) run ./scripts/readonlysweep -agentexec bin/agentexec $(if $(SWEEP),-only '$(SWEEP)')

lint: fmt-check vet
	@command -v staticcheck >/dev/null && staticcheck $(PKGS) || echo "staticcheck not installed; ran gofmt and vet"

clean:
	rm -rf bin
