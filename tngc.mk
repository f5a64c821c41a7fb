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
# The depfiles (every module a script imports) of the bundles and plans are
# read through one makefile, $(TNGC_DEPS_MK), that make remakes before it
# builds anything, when every variable has its final value (so wherever the
# lists are set); its recipe rewrites it only when the list of depfiles
# changes, so make does not start over. The lint stamps need no depfile
# (lint checks each script on its own).
.SECONDEXPANSION:

# tngc itself: on PATH, else the one installed beside this file
# (<prefix>/share/tngc/tngc.mk -> <prefix>/bin/tngc).
tngc_mk_dir := $(dir $(lastword $(MAKEFILE_LIST)))
ifeq ($(origin TNGC),undefined)
TNGC := $(if $(shell command -v tngc 2>/dev/null),tngc,$(if $(wildcard $(tngc_mk_dir)../../bin/tngc),$(abspath $(tngc_mk_dir)../../bin/tngc),tngc))
endif

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
tngc-lint: $$(TNGC_LINT_STAMPS)
tngc-plan: $$(TNGC_PLANS)

# The plan of each script (tngc writes it atomically: a failed plan leaves
# no file behind, so make retries it).
%.plan: $$(call tngc_script,$$(TNGC_STAMPS),$$@)
	@mkdir -p $(call tngc_q,$(dir $@))
	$(TNGC) plan $(TNGC_PLAN_FLAGS) -o $(call tngc_q,$@) $(if $(call tngc_no_depfile,$@ $<),,-MF $(call tngc_q,$@.d) )$(call tngc_q,$<)

# The depfiles of every bundle and plan, as one makefile of -include lines
# (none for a file whose name tngc does not put in a depfile, nor for one
# with a blank or '#', which an include line cannot name).
TNGC_DEPS_MK ?= $(TNGC_STAMPS)/deps.mk
tngc_includable = $(if $(call tngc_no_depfile,$1)$(findstring \#,$1)$(findstring \,$1),,$2)
tngc_depfiles = $(foreach f,$(TNGC_BUNDLE_STAMPS),$(call tngc_includable,$f,$(f:.built=.d))) \
                $(foreach f,$(TNGC_PLANS),$(call tngc_includable,$f,$f.d))
tngc_deps_mk := $(TNGC_DEPS_MK)
-include $(tngc_deps_mk)
.PHONY: tngc-deps-force
$(tngc_deps_mk): tngc-deps-force
	@$(if $(strip $(tngc_depfiles)),mkdir -p $(call tngc_q,$(dir $@)) \
	  && printf '%s\n' '# the depfiles of tngc.mk (written by make)' \
	     $(foreach f,$(strip $(tngc_depfiles)),$(call tngc_q,-include $f)) >$(call tngc_q,$@.tmp) \
	  && if cmp -s $(call tngc_q,$@.tmp) $(call tngc_q,$@); then rm -f $(call tngc_q,$@.tmp); \
	     else mv -f $(call tngc_q,$@.tmp) $(call tngc_q,$@); fi,:)

%.lint: $$(call tngc_script,$$(TNGC_STAMPS),$$@)
	@mkdir -p $(call tngc_q,$(dir $@))
	$(TNGC) lint $(TNGC_LINT_FLAGS) $(call tngc_q,$<)
	@touch $(call tngc_q,$@)

# The annotations of every script as one JSON document.
tngc-scan:
	$(TNGC) scan --format json $(foreach f,$(TNGC_SOURCES),$(call tngc_q,$f))

tngc-clean:
	rm -rf $(call tngc_q,$(TNGC_STAMPS)) $(call tngc_q,$(TNGC_OUT))
