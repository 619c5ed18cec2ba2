# tests/unit/unit.mk - unit tests of src/common, included by the top-level
# Makefile. `make unit` builds each tests/unit/test_*.c together with all of
# src/common into build/tests/ and runs them; `make unit-asan` builds and
# runs the same tests under ASan + UBSan into build/tests/asan/. Any failure
# fails the target; `make check` (tests/run.sh) runs and counts both.

UNIT_SRC   := $(filter-out tests/unit/test_reloc.c,$(wildcard tests/unit/test_*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC)) \
              $(BUILD)/tests/test_reloc_now $(BUILD)/tests/test_reloc_noplt

# The relocation walker is tested on its own test binary as loaded, once
# with PLT calls bound now and once with -fno-plt (GLOB_DAT calls).
$(BUILD)/tests/test_reloc_now: tests/unit/test_reloc.c src/runtime/reloc.c src/runtime/reloc.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/reloc.c -Wl,-z,now -ldl -lm

$(BUILD)/tests/test_reloc_noplt: tests/unit/test_reloc.c src/runtime/reloc.c src/runtime/reloc.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-plt -DEXPECT_GOT -Itests/unit -Isrc/runtime -o $@ $< src/runtime/reloc.c -Wl,-z,now -ldl -lm

# Pieces of the runtime's arch directory, each tested alone: the prologue
# reader (peek.c), the GOT-use scan (gotscan.c) and the CLI's remote calls
# (inject.c); test_X.c tests X.c.
ARCH_UNIT := peek gotscan inject
$(ARCH_UNIT:%=$(BUILD)/tests/test_%): $(BUILD)/tests/test_%: tests/unit/test_%.c arch/$(ARCH)/%.c arch/$(ARCH)/arch.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< arch/$(ARCH)/$*.c

$(ARCH_UNIT:%=$(BUILD)/tests/asan/test_%): $(BUILD)/tests/asan/test_%: tests/unit/test_%.c arch/$(ARCH)/%.c arch/$(ARCH)/arch.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< arch/$(ARCH)/$*.c

# Pieces of the runtime tested alone, test_X.c against src/runtime/X.c:
# its in-place sort (sort.c), its reading of its settings (env.c), its
# files (files.c) and its locks (lock.c).
RT_UNIT := sort env files lock
$(RT_UNIT:%=$(BUILD)/tests/test_%): $(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/check.h \
		src/runtime/%.c src/runtime/runtime.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/$*.c

$(RT_UNIT:%=$(BUILD)/tests/asan/test_%): $(BUILD)/tests/asan/test_%: tests/unit/test_%.c \
		tests/unit/check.h src/runtime/%.c src/runtime/runtime.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/$*.c

# The runtime's direct system calls (sys.c), linked as the runtime is.
SYS_WRAP := $(patsubst %,-Wl$(comma)--wrap=%,$(RT_SYSCALLS))
$(BUILD)/tests/test_sys: tests/unit/test_sys.c tests/unit/check.h src/runtime/sys.c \
		arch/$(ARCH)/rawsys.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< src/runtime/sys.c $(SYS_WRAP)

$(BUILD)/tests/asan/test_sys: tests/unit/test_sys.c tests/unit/check.h src/runtime/sys.c \
		arch/$(ARCH)/rawsys.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< src/runtime/sys.c $(SYS_WRAP)

# The runtime's span table (span.c), alone.
$(BUILD)/tests/test_span: tests/unit/test_span.c tests/unit/check.h src/runtime/span.c \
		src/runtime/runtime.h arch/$(ARCH)/offsets.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/span.c -lm

$(BUILD)/tests/asan/test_span: tests/unit/test_span.c tests/unit/check.h src/runtime/span.c \
		src/runtime/runtime.h arch/$(ARCH)/offsets.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/span.c -lm

# The runtime's reading of a thread's perf rings (perf.c, offcpu.c) and of
# per-CPU rings (kcpu.c), its clocks and files stubbed by the test.
PERF_DEPS := tests/unit/test_perf.c tests/unit/check.h src/runtime/perf.c src/runtime/offcpu.c \
	src/runtime/kcpu.c src/common/offcpu_event.h src/common/pidstart.c src/runtime/env.c \
	src/runtime/runtime.h src/common/format.h arch/$(ARCH)/offsets.h
PERF_SRC := src/runtime/perf.c src/runtime/offcpu.c src/runtime/kcpu.c src/common/pidstart.c \
	src/runtime/env.c
$(BUILD)/tests/test_perf: $(PERF_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/runtime -o $@ $< $(PERF_SRC)

$(BUILD)/tests/asan/test_perf: $(PERF_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/runtime -o $@ $< $(PERF_SRC)

# The function-entry patcher (fnpatch.c), with the decoder it loads.
$(BUILD)/tests/test_fnpatch: tests/unit/test_fnpatch.c arch/$(ARCH)/fnpatch.c arch/$(ARCH)/insnlen.c arch/$(ARCH)/fnpatch.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< arch/$(ARCH)/fnpatch.c arch/$(ARCH)/insnlen.c -ldl

$(BUILD)/tests/asan/test_fnpatch: tests/unit/test_fnpatch.c arch/$(ARCH)/fnpatch.c arch/$(ARCH)/insnlen.c arch/$(ARCH)/fnpatch.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< arch/$(ARCH)/fnpatch.c arch/$(ARCH)/insnlen.c -ldl

# The report writers and the nesting tree (src/cli/report_*.c) on
# in-memory profiles; the profile reader (src/common), the model built on
# it (src/cli/model.c, with its threads' routine names and its calls'
# demangled names) and the writers on what it reads.
MODEL_SRC := src/cli/model.c src/cli/routines.c src/cli/demangle.c
REPORT_SRC := $(wildcard src/cli/report_*.c) $(MODEL_SRC)
REPORT_UNIT := report stacks exports profile report_names
$(REPORT_UNIT:%=$(BUILD)/tests/test_%): $(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/check.h tests/unit/report_fixture.h $(COMMON_SRC) \
		$(REPORT_SRC) src/cli/report.h src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/cli -o $@ $< $(REPORT_SRC) $(COMMON_SRC) -ldl -lm -lz

# scaler live's snapshots and table (src/cli/live_*.c) on in-memory snapshots.
LIVE_SRC := src/cli/live_snap.c src/cli/live_view.c $(REPORT_SRC)
$(BUILD)/tests/test_live: tests/unit/test_live.c tests/unit/check.h $(COMMON_SRC) \
		$(LIVE_SRC) src/cli/live.h src/cli/report.h src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/cli -o $@ $< $(LIVE_SRC) $(COMMON_SRC) -ldl -lm -lz

$(BUILD)/tests/asan/test_live: tests/unit/test_live.c tests/unit/check.h $(COMMON_SRC) \
		$(LIVE_SRC) src/cli/live.h src/cli/report.h src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/cli -o $@ $< $(LIVE_SRC) $(COMMON_SRC) -ldl -lm -lz

# The option tables and --component's matching (src/cli/cli.c, report_match.c).
CLI_UNIT_SRC := src/cli/cli.c src/cli/report_match.c
$(BUILD)/tests/test_cli: tests/unit/test_cli.c tests/unit/check.h $(CLI_UNIT_SRC) src/cli/cli.h \
		src/cli/report.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/cli -o $@ $< $(CLI_UNIT_SRC)

$(BUILD)/tests/asan/test_cli: tests/unit/test_cli.c tests/unit/check.h $(CLI_UNIT_SRC) \
		src/cli/cli.h src/cli/report.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/cli -o $@ $< $(CLI_UNIT_SRC)

# The statistics of scaler diff (src/cli/diff_stats.c), alone.
$(BUILD)/tests/test_diff_stats: tests/unit/test_diff_stats.c tests/unit/check.h \
		src/cli/diff_stats.c src/cli/diff_stats.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/cli -o $@ $< src/cli/diff_stats.c -lm

$(BUILD)/tests/asan/test_diff_stats: tests/unit/test_diff_stats.c tests/unit/check.h \
		src/cli/diff_stats.c src/cli/diff_stats.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/cli -o $@ $< src/cli/diff_stats.c -lm

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/check.h $(COMMON_SRC) \
		$(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(COMMON_SRC) -lm


# The same tests under AddressSanitizer + UBSan (the runtime itself cannot
# run under ASan inside someone else's process; its pure parts can).
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/asan/%,$(UNIT_SRC)) $(BUILD)/tests/asan/test_reloc

$(BUILD)/tests/asan/test_reloc: tests/unit/test_reloc.c src/runtime/reloc.c src/runtime/reloc.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/reloc.c -Wl,-z,now -ldl -lm

$(REPORT_UNIT:%=$(BUILD)/tests/asan/test_%): $(BUILD)/tests/asan/test_%: tests/unit/test_%.c tests/unit/check.h tests/unit/report_fixture.h $(COMMON_SRC) \
		$(REPORT_SRC) src/cli/report.h src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/cli -o $@ $< $(REPORT_SRC) $(COMMON_SRC) -ldl -lm -lz

$(BUILD)/tests/asan/test_%: tests/unit/test_%.c tests/unit/check.h $(COMMON_SRC) $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< $(COMMON_SRC) -lm

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

unit-asan: $(ASAN_TESTS)
	@set -e; for t in $(ASAN_TESTS); do echo "== $$t"; $$t; done

.PHONY: unit unit-asan

# What an image hands down to the one it execs (inherit.c), the rest of the
# runtime stubbed by the test.
INHERIT_DEPS := tests/unit/test_inherit.c tests/unit/check.h src/runtime/inherit.c \
	src/runtime/env.c src/runtime/runtime.h
$(BUILD)/tests/test_inherit: $(INHERIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/inherit.c src/runtime/env.c

$(BUILD)/tests/asan/test_inherit: $(INHERIT_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -Isrc/runtime -o $@ $< src/runtime/inherit.c src/runtime/env.c
