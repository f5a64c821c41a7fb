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
# a bundle exactly when its script or a module it imports changes (and a
# rebuild of unchanged files is a cache hit in tngc's own cache).
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

# Set the variables before or after the include: tngc.mk reads them when
# make builds, not when it reads this file. Its target lists are expanded a
# second time (.SECONDEXPANSION, so a `$$` in a prerequisite of a rule of
# yours after the include is expanded again too), and its rules are patterns
# that recognise their files by $(TNGC_STAMPS) and $(TNGC_OUT) at build time.
# A script name is never read as make syntax: "models/a;b.py" is one file.
# The depfiles (every module a script imports) are read for the bundles and
# the plans of the scripts listed before the include; the lint stamps do not
# need them (lint checks each script on its own).
.SECONDEXPANSION:

# A file name as one shell word: recipes quote every path they pass, so a
# script named "x;rm${IFS}-rf${IFS}~;.py" is a file name, not a command.
tngc_q = '$(subst ','\'',$1)'

TNGC_LINT_STAMPS = $(patsubst %.py,$(TNGC_STAMPS)/%.lint,$(TNGC_SOURCES))
TNGC_PLANS       = $(patsubst %.py,$(TNGC_STAMPS)/%.plan,$(TNGC_SOURCES))

TNGC_BUNDLE_STAMPS = $(patsubst %.py,$(TNGC_OUT)/%.built,$(TNGC_BUNDLES))

# A folder as make names the files in it (no leading ./).
tngc_dir = $(patsubst ./%,%,$1)
# The script of tngc's file $2 (folder $1, then the script's path with its
# .py replaced by the file's suffix); for a file outside $1, a prerequisite
# that cannot exist, so these patterns match no file of yours. (make does
# not look for '%' in a prerequisite after its second expansion.)
tngc_script = $(if $(filter $(call tngc_dir,$1)/%,$2),$(patsubst $(call tngc_dir,$1)/%,%,$(basename $2)).py,/dev/null/not-a-tngc-file)

.PHONY: tngc-lint tngc-plan tngc-scan tngc-clean tngc-build
tngc-build: $$(TNGC_BUNDLE_STAMPS)

# A character that tngc refuses to name in a depfile (make_unsafe in tngc.c):
# such a bundle is built without one.
tngc_no_depfile = $(strip $(foreach c,; = % | * ? [ $$,$(findstring $c,$1)))

# One bundle per script in $(TNGC_OUT)/<script path without .py>/.
%.built: $$(call tngc_script,$$(TNGC_OUT),$$@)
	@mkdir -p $(call tngc_q,$(basename $@))
	$(TNGC) build $(TNGC_BUILD_FLAGS) -o $(call tngc_q,$(basename $@)) $(if $(call tngc_no_depfile,$@ $<),,-MF $(call tngc_q,$(basename $@).d) -MT $(call tngc_q,$@) )$(call tngc_q,$<)
	@touch $(call tngc_q,$@)
-include $(TNGC_BUNDLE_STAMPS:.built=.d)
tngc-lint: $$(TNGC_LINT_STAMPS)
tngc-plan: $$(TNGC_PLANS)

# The plan of each script (tngc writes it atomically: a failed plan leaves
# no file behind, so make retries it).
%.plan: $$(call tngc_script,$$(TNGC_STAMPS),$$@)
	@mkdir -p $(call tngc_q,$(dir $@))
	$(TNGC) plan $(TNGC_PLAN_FLAGS) -o $(call tngc_q,$@) $(if $(call tngc_no_depfile,$@ $<),,-MF $(call tngc_q,$@.d) )$(call tngc_q,$<)
-include $(TNGC_PLANS:=.d)

%.lint: $$(call tngc_script,$$(TNGC_STAMPS),$$@)
	@mkdir -p $(call tngc_q,$(dir $@))
	$(TNGC) lint $(TNGC_LINT_FLAGS) $(call tngc_q,$<)
	@touch $(call tngc_q,$@)

# The annotations of every script as one JSON document.
tngc-scan:
	$(TNGC) scan --format json $(foreach f,$(TNGC_SOURCES),$(call tngc_q,$f))

tngc-clean:
	rm -rf $(call tngc_q,$(TNGC_STAMPS)) $(call tngc_q,$(TNGC_OUT))
