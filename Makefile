# calshim: the two entry points are `make demo` and `make test` (see README.md).
SHELL := /bin/bash
# A second rig: CALSHIM_STATE=/tmp/calshim-wp2 WP_HOST=127.0.0.2 WP_PORT=8882 DB_NAME=calshim_wp2
# WP_CONTENT=/tmp/calshim-wp2/wp-content make test (see scripts/wp-up.sh).
STATE ?= $(or $(CALSHIM_STATE),/tmp/calshim-wp)
export CALSHIM_STATE := $(STATE)
GO ?= $(shell command -v go || echo /usr/local/go/bin/go)

.PHONY: demo test unit lint fuzz wordpress seed test-deps build bench bench-sync bench-load clean tools image soak soak-model helm helm-check

# The version calshim -version, the start log and calshim_build_info report: the commit, as the image's.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/calshim ./cmd/calshim

# WordPress (Debian packages, MariaDB, PHP) on 127.0.0.1:8881 with the calshim plugin; idempotent.
wordpress:
	scripts/wp-up.sh

seed: wordpress
	scripts/wp-seed.sh

# haproxy, nginx, podman and varnish from Debian, for the replica, routing, image and edge cache tests
# (scripts/tools-up.sh); idempotent. For the test machine only: it stops Debian's nginx, haproxy and
# varnish services, which the tests replace with their own. No operator target depends on it.
tools:
	scripts/tools-up.sh

# The container image (deploy/Containerfile, FROM scratch) with podman: scripts/image.sh. It needs podman
# alone (installed from Debian when missing; podman runs no service) and touches no service of the host.
image:
	VERSION=$(VERSION) scripts/image.sh

# 10 minutes of reads and writes through three replicas behind haproxy, WordPress stopped and started
# twice, one replica killed (scripts/soak.sh; not part of make test).
soak: tools seed
	scripts/soak.sh

# The model-based test of state (test/model_test.go) at length: CALSHIM_MODEL_STEPS random steps
# (default 300) from a fresh seed, printed; CALSHIM_MODEL_SEED=<seed> replays one. Not part of make test.
soak-model: tools seed
	CALSHIM_MODEL_SEED=$${CALSHIM_MODEL_SEED:-random} CALSHIM_MODEL_STEPS=$${CALSHIM_MODEL_STEPS:-300} $(GO) test ./test/ -run '^TestModelState$$' -count=1 -timeout 150m -v

# Runs the shim on 127.0.0.1:8080 against the seeded local WordPress.
demo: seed build
	@source $(STATE)/wp.env && \
	echo "calshim on http://127.0.0.1:8080 — try:" && \
	echo "  curl -s 'http://127.0.0.1:8080/wp-json/cal/events/v1/events?per_page=3' | jq ." && \
	echo "  curl -s 'http://127.0.0.1:8080/wp-json/cal/events/v1/events/by-slug/opening-night-gala' | jq ." && \
	echo "  curl -s 'http://127.0.0.1:8080/wp-json/cal/events/v1/venues' | jq ." && \
	echo "  curl -s 'http://127.0.0.1:8080/wp-json/cal/events/v1/categories' | jq ." && \
	echo "  curl -s 'http://127.0.0.1:8080/wp-json/cal/events/v1/doc' | jq .paths" && \
	export CALSHIM_UPSTREAM_URL CALSHIM_UPSTREAM_USER CALSHIM_UPSTREAM_APP_PASSWORD && \
	exec bin/calshim

# Unit tests only (no WordPress needed).
unit:
	$(GO) vet ./...
	$(GO) test ./mapping/... ./adapter/... ./catalog/... ./cmsclient/... ./config/... ./internal/... ./cmd/...

# Static checks (.golangci.yml). golangci-lint is pinned and built once into bin/ from the Go module
# cache, which it falls back to the module proxy to fill: after the first download it works offline.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...

$(GOLANGCI_LINT):
	mkdir -p bin/.tools
	GOBIN=$(CURDIR)/bin/.tools GOPROXY="file://$$($(GO) env GOMODCACHE)/cache/download|$$($(GO) env GOPROXY)" \
		$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv bin/.tools/golangci-lint $@

# Helm, pinned and built once into bin/ like golangci-lint (make test builds it before the Go tests).
# deploy/helm_test.go lints and renders the chart (deploy/helm/calshim) with it and checks that it
# renders the objects of deploy/k8s; outside make it finds the binary by this pin.
HELM_VERSION := v3.22.0
HELM := bin/helm-$(HELM_VERSION)
export CALSHIM_HELM := $(CURDIR)/$(HELM)

helm-check: $(HELM)
	$(GO) test -count=1 ./deploy/

# The pinned Helm for an operator: built into bin/ (needs Go and the module proxy once), linked as bin/helm.
helm: $(HELM)
	ln -sf $(notdir $(HELM)) bin/helm
	@echo "helm $(HELM_VERSION): bin/helm (e.g. bin/helm install calshim deploy/helm/calshim -f upstream.yaml)"

$(HELM):
	mkdir -p bin/.tools
	GOBIN=$(CURDIR)/bin/.tools GOPROXY="file://$$($(GO) env GOMODCACHE)/cache/download|$$($(GO) env GOPROXY)" \
		$(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	mv bin/.tools/helm $@

# The independent iCalendar parsers the suite checks the feed with (python3-icalendar, ical.js).
test-deps:
	scripts/test-deps.sh

# Everything: unit tests, then the black-box suite in test/ against a freshly seeded real WordPress,
# then each fuzz target for 2 s. The rig installs php and WordPress, so the tests that compare the
# PHP ports with PHP itself must run (CALSHIM_REQUIRE_PHP: internal/testkit/phptest).
test: lint tools seed test-deps $(HELM)
	$(GO) vet ./...
	CALSHIM_REQUIRE_PHP=1 $(GO) test -count=1 -timeout 30m ./...
	GO=$(GO) scripts/fuzz.sh 2s

# Every Go fuzz target, FUZZTIME each (scripts/fuzz.sh); a failing input is kept in testdata/fuzz.
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin

# Load time, RSS and requests/s next to WordPress (reseeds the rig; see scripts/bench.sh).
bench: build
	scripts/bench.sh

# Sync: cold load of 100,000 events, warm restart, RSS, idle upstream requests per minute and the
# freshness of direct edits (reseeds the rig; see scripts/bench-sync.sh).
bench-sync: wordpress
	scripts/bench-sync.sh

# Readiness and convergence: cold load, restart, restart after an SQL import, list latency, printed
# beside the previous run's figures (nginx + php-fpm; see scripts/bench-load.sh).
bench-load: wordpress tools
	scripts/bench-load.sh

# The WordPress plugin as a zip for Plugins > Add New > Upload Plugin: bin/calshim-plugin.zip
# (scripts/plugin-zip.sh; the must-use install copies cmsclient/wordpress/calshim.php instead).
.PHONY: plugin-zip
plugin-zip:
	scripts/plugin-zip.sh
