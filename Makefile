# tngc - build, test, demo, install.  `make help` lists the targets.
#
#   make               build build/tngc (dependencies installed when missing)
#   make check         every test; SANITIZE=1 builds and tests with ASan+UBSan
#   make demo          lint, scan and analyse the examples
#   make bench         lint/scan throughput vs ast.parse; bundle dispatch cost and stream speed-up
#   make install PREFIX=/usr/local
#   make fuzz          libFuzzer over parse..emit for FUZZ_TIME seconds (default 600); not in check

CC       ?= cc
PREFIX   ?= /usr/local
SANITIZE ?=
ifeq ($(SANITIZE),1)
BUILD    ?= build/san
SANFLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT       = -O1
else
BUILD    ?= build
SANFLAGS  =
OPT       = -O2
endif

TSPY      = build/tree-sitter-python
WARN      = -std=c11 -Wall -Wextra -Wpedantic -Werror
CFLAGS   ?= $(OPT) -g
ALLFLAGS  = $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP -D_POSIX_C_SOURCE=200809L
LLVM_DIR ?= /usr/lib/llvm-14
LDLIBS    = -ltree-sitter -lclang-14 -lpthread -lm
# What a program that links libtngcrt needs besides it (tngcrt.pc says the same).
RTLIBS    = -lopenblas -lpthread -lm

# Every .c file of the layers is part of tngc (sorted: the link order is stable).
SRCS      = $(sort $(wildcard support/*.c frontend/*.c planner/*.c codegen/*.c))
OBJS      = $(SRCS:%.c=$(BUILD)/obj/%.o)
TSOBJS    = $(BUILD)/obj/ts/parser.o $(BUILD)/obj/ts/scanner.o
# The templates of generated files, embedded in tngc (scripts/embed.sh).
TEMPLATES = $(sort $(wildcard templates/*.c templates/*.h))
TPLOBJ    = $(BUILD)/obj/templates_data.o
UNIT      = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
TNGC      = $(BUILD)/tngc
# libtngcrt: the runtime that generated bundles link (runtime/*.c).
RT_SRCS   = $(sort $(wildcard runtime/*.c))
RT_OBJS   = $(RT_SRCS:%.c=$(BUILD)/obj/%.o)
LIBRT     = $(if $(RT_SRCS),$(BUILD)/libtngcrt.a)

.PHONY: all deps check unit golden acl demo bench install clean help fuzz
all: $(TNGC) $(LIBRT)

$(BUILD)/libtngcrt.a: $(RT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# Dependencies: Debian packages and tree-sitter-python from npm.
DEPSTAMP = build/.deps-ok
$(DEPSTAMP): scripts/deps.sh
	@sh scripts/deps.sh build
	@touch $@
deps: $(DEPSTAMP)
$(TSPY)/src/parser.c $(TSPY)/src/scanner.c: | $(DEPSTAMP)
	@test -f $@ || { echo "deps: $@ is missing: remove $(DEPSTAMP) and run make again" >&2; exit 1; }

$(TNGC): $(BUILD)/obj/tngc.o $(OBJS) $(TPLOBJ) $(TSOBJS)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/templates_data.c: $(TEMPLATES) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $(TEMPLATES) > $@.tmp && mv $@.tmp $@
$(TPLOBJ): $(BUILD)/obj/templates_data.c
	$(CC) $(CFLAGS) $(SANFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c | $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) -c -o $@ $<

# The runtime is compiled by clang, as the bundles are: its float loops are
# written to be vectorised, and GCC 12 at -O2 (its "very cheap" cost model)
# leaves some scalar (the polynomial GELU: 7 ns an element vs clang's 1.8).
# DWARF 4: Debian's valgrind 3.19 cannot read clang 14's default DWARF 5.
RTCC ?= clang
$(BUILD)/obj/runtime/%.o: runtime/%.c | $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(RTCC) $(ALLFLAGS) -gdwarf-4 -ffp-contract=off -c -o $@ $<

# libclang's headers; the clang driver links bundles with tngc's own sanitizers.
$(BUILD)/obj/codegen/usercheck.o: ALLFLAGS += -I$(LLVM_DIR)/include
$(BUILD)/obj/codegen/build.o: ALLFLAGS += -DTNGC_SANFLAGS='"$(SANFLAGS)"'

# The grammar is generated code: built without our warnings.
$(BUILD)/obj/ts/%.o: $(TSPY)/src/%.c | $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -w -I$(TSPY)/src -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(OBJS) $(TPLOBJ) $(TSOBJS) $(LIBRT)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) -o $@ $< $(OBJS) $(TPLOBJ) $(TSOBJS) $(LIBRT) $(LDLIBS) $(RTLIBS) -lcmocka

unit: $(UNIT)
	@set -e; for t in $(UNIT); do echo "== $$t"; $$t; done

golden: $(TNGC)
	@sh tests/golden/run.sh $(TNGC)

# The ACL target, compile-checked against tests/acl/cann (no NPU here).
acl: $(TNGC) $(LIBRT)
	@sh tests/acl/run.sh $(TNGC)

check: $(TNGC) $(LIBRT) $(UNIT)
	@sh tests/check.sh $(TNGC) $(UNIT)

demo: $(TNGC) $(LIBRT)
	@sh examples/demo.sh $(TNGC)

bench: $(TNGC) $(LIBRT)
	@sh bench/run.sh $(TNGC)

# The runtime headers bundles include (internal.h stays private).
RT_HEADERS = runtime/tngrt.h runtime/tngrt_bundle.h runtime/tngrt_exec.h runtime/tngrt_kernels.h \
             $(wildcard runtime/tngrt_kernel_impl.h)
VERSION    = $(shell sed -n 's/^#define TNGC_VERSION "\(.*\)"/\1/p' tngc.c)

install: $(TNGC) $(LIBRT)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/doc/tngc \
	    $(DESTDIR)$(PREFIX)/share/tngc $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/tngc
	install -m 755 $(TNGC) $(DESTDIR)$(PREFIX)/bin/tngc
	install -m 644 $(LIBRT) $(DESTDIR)$(PREFIX)/lib/libtngcrt.a
	install -m 644 $(RT_HEADERS) $(DESTDIR)$(PREFIX)/include/tngc/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tngcrt.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tngcrt.pc
	install -m 644 tngc.mk $(DESTDIR)$(PREFIX)/share/tngc/tngc.mk
	install -m 644 docs/tngc.1 $(DESTDIR)$(PREFIX)/share/man/man1/tngc.1
	install -m 644 docs/rules.md docs/plan.md docs/plan-format.md docs/bundles.md $(DESTDIR)$(PREFIX)/share/doc/tngc/

clean:
	rm -rf build/obj build/san build/tests build/tngc build/libtngcrt.a

help:
	@sed -n '1,9p' Makefile

-include $(OBJS:.o=.d) $(RT_OBJS:.o=.d) $(UNIT:=.d) $(BUILD)/obj/tngc.d

# ---- fuzzing (tests/fuzz/README.md) ------------------------------------------
# `make fuzz` builds build/fuzz/fuzz_pipeline (every layer source and the
# grammar compiled again by clang with libFuzzer, ASan and UBSan) and runs it
# for FUZZ_TIME seconds on FUZZ_JOBS workers (tests/fuzz/run.sh); it fails
# when a worker finds a crash, a leak, a hang or a memory blow-up.
FUZZ_TIME   ?= 600
FUZZ_JOBS   ?= 2
FUZZ_CC     ?= clang
FUZZ_DIR     = build/fuzz
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  = -std=c11 -Wall -Wextra -Wpedantic -O1 -g -gdwarf-4 $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
               -D_POSIX_C_SOURCE=200809L -MMD -MP
FUZZ_OBJS    = $(SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_TSOBJS  = $(FUZZ_DIR)/obj/ts/parser.o $(FUZZ_DIR)/obj/ts/scanner.o
FUZZ_BIN     = $(FUZZ_DIR)/fuzz_pipeline

$(FUZZ_DIR)/obj/%.o: %.c | $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_DIR)/obj/codegen/usercheck.o: FUZZ_CFLAGS += -I$(LLVM_DIR)/include
$(FUZZ_DIR)/obj/codegen/build.o: FUZZ_CFLAGS += -DTNGC_SANFLAGS='""'
$(FUZZ_DIR)/obj/ts/%.o: $(TSPY)/src/%.c | $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -w -I$(TSPY)/src -c -o $@ $<
$(FUZZ_DIR)/obj/templates_data.o: $(BUILD)/obj/templates_data.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O1 -c -o $@ $<
$(FUZZ_DIR)/libtngc.a: $(FUZZ_OBJS) $(FUZZ_TSOBJS) $(FUZZ_DIR)/obj/templates_data.o
	@rm -f $@
	$(AR) rcs $@ $^
$(FUZZ_BIN): $(FUZZ_DIR)/obj/tests/fuzz/fuzz_pipeline.o $(FUZZ_DIR)/libtngc.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) -lcjson

fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(FUZZ_BIN) $(FUZZ_TIME) $(FUZZ_JOBS)

-include $(FUZZ_OBJS:.o=.d) $(FUZZ_DIR)/obj/tests/fuzz/fuzz_pipeline.d
