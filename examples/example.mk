# examples/example.mk - what every example's Makefile shares: lint, scan,
# plan, ref (PyTorch on the CPU), build (its bundles, through tngc.mk) and run.
#
# An example's Makefile sets TNGC_BUNDLES (its scripts) and includes this.
# Usage: make [lint|scan|plan|ref|build|run|clean] [TNGC=path] [PYTHON=python3 with torch]
TNGC ?= ../../build/tngc
PYTHON ?= /usr/bin/python3
SCRIPTS := $(wildcard *.py)

.PHONY: all lint scan plan build run ref clean

all: lint scan plan

lint:
	$(TNGC) lint $(SCRIPTS)

scan:
	$(TNGC) scan --format json $(SCRIPTS)

# One plan per bundle script (TNGC_BUNDLES; the other .py files are modules
# they import), rebuilt when any .py file of the folder changes.
plan: $(TNGC_BUNDLES:.py=.plan)

%.plan: %.py $(SCRIPTS)
	$(TNGC) plan -o $@ $<

# PyTorch on the CPU with the stand-in torch_npu/torchair of tests/ref
ref:
	sh ../../tests/ref/run_example.sh $(firstword $(TNGC_BUNDLES))

# Bundles, built with tngc.mk's rules: tngc-out/<script>/<name>.h, lib<name>.a,
# <name>_launcher (and the generated sources); tngc's cache in ~/.cache/tngc (or $XDG_CACHE_HOME/tngc).
include ../../tngc.mk

build: tngc-build

# PyTorch (tests/ref/harness.py) makes sample inputs and its outputs under
# sample/<script>/<bundle>/; each launcher runs on them, its outputs are shown
# and compared with PyTorch's (tests/e2e/run_sample.sh). RUN_AFTER, when an
# example sets it, runs last.
run: tngc-build
	@for s in $(TNGC_BUNDLES); do \
	    PYTHON=$(PYTHON) sh ../../tests/e2e/run_sample.sh $$s $(TNGC_OUT)/$${s%.py} sample/$${s%.py} || exit 1; \
	done
	$(RUN_AFTER)

clean: tngc-clean
	rm -f *.plan && rm -rf sample .tngc_cache
