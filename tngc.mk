# tngc.mk - make rules for projects that check TorchAir scripts with tngc
# and build their models into bundles.
#
#   TNGC_SOURCES := $(wildcard models/*.py)
#   include /usr/local/share/tngc/tngc.mk
#   check: tngc-lint
#   all: tngc-plan          # a .plan file next to each stamp
#
# Bundles, one line per model:
#
#   TNGC_BUNDLES += models/decoder.py    # -> $(TNGC_OUT)/models/decoder/decoder_launcher
#   all: tngc-build
#
# `tngc build` writes a depfile beside each bundle's stamp, so make rebuilds
# a bundle exactly when its script changes (and a rebuild of an unchanged
# script is a cache hit in tngc's own cache).
#
# Each script gets a stamp under $(TNGC_STAMPS), so `make tngc-lint` re-lints
# only the scripts that changed; a script with findings fails the build
# (tngc exits 1) and keeps no stamp. `make -j` lints scripts in parallel.

TNGC            ?= tngc
TNGC_LINT_FLAGS ?=
TNGC_STAMPS     ?= .tngc
TNGC_SOURCES    ?=

TNGC_PLAN_FLAGS ?=
TNGC_BUILD_FLAGS ?=
TNGC_BUNDLES    ?=
TNGC_OUT        ?= tngc-out

TNGC_LINT_STAMPS = $(patsubst %.py,$(TNGC_STAMPS)/%.lint,$(TNGC_SOURCES))
TNGC_PLANS       = $(patsubst %.py,$(TNGC_STAMPS)/%.plan,$(TNGC_SOURCES))

TNGC_BUNDLE_STAMPS = $(patsubst %.py,$(TNGC_OUT)/%.built,$(TNGC_BUNDLES))

.PHONY: tngc-lint tngc-plan tngc-scan tngc-clean tngc-build
tngc-build: $(TNGC_BUNDLE_STAMPS)

# One bundle per script in $(TNGC_OUT)/<script path without .py>/.
$(TNGC_OUT)/%.built: %.py
	@mkdir -p $(TNGC_OUT)/$*
	$(TNGC) build $(TNGC_BUILD_FLAGS) -o $(TNGC_OUT)/$* -MF $(TNGC_OUT)/$*.d $<
	@touch $@
-include $(TNGC_BUNDLE_STAMPS:.built=.d)
tngc-lint: $(TNGC_LINT_STAMPS)
tngc-plan: $(TNGC_PLANS)

# The plan of each script (tngc writes it atomically: a failed plan leaves
# no file behind, so make retries it).
$(TNGC_STAMPS)/%.plan: %.py
	@mkdir -p $(dir $@)
	$(TNGC) plan $(TNGC_PLAN_FLAGS) -o $@ $<

$(TNGC_STAMPS)/%.lint: %.py
	@mkdir -p $(dir $@)
	$(TNGC) lint $(TNGC_LINT_FLAGS) $<
	@touch $@

# The annotations of every script as one JSON document.
tngc-scan:
	$(TNGC) scan --format json $(TNGC_SOURCES)

tngc-clean:
	rm -rf $(TNGC_STAMPS) $(TNGC_OUT)
