# tngc.mk - make rules for projects that check TorchAir scripts with tngc.
#
#   TNGC_SOURCES := $(wildcard models/*.py)
#   include /usr/local/share/tngc/tngc.mk
#   check: tngc-lint
#   all: tngc-plan          # a .plan file next to each stamp
#
# Each script gets a stamp under $(TNGC_STAMPS), so `make tngc-lint` re-lints
# only the scripts that changed; a script with findings fails the build
# (tngc exits 1) and keeps no stamp. `make -j` lints scripts in parallel.

TNGC            ?= tngc
TNGC_LINT_FLAGS ?=
TNGC_STAMPS     ?= .tngc
TNGC_SOURCES    ?=

TNGC_PLAN_FLAGS ?=

TNGC_LINT_STAMPS = $(patsubst %.py,$(TNGC_STAMPS)/%.lint,$(TNGC_SOURCES))
TNGC_PLANS       = $(patsubst %.py,$(TNGC_STAMPS)/%.plan,$(TNGC_SOURCES))

.PHONY: tngc-lint tngc-plan tngc-scan tngc-clean
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
	rm -rf $(TNGC_STAMPS)
