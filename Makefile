# scaler - top-level build. `make` builds build/bin/scaler and build/lib/libscaler.so.
# See README.md for the targets a user runs (demo, check, check-apps, bench, install).

CC      ?= gcc
ARCH    ?= $(shell uname -m)
PREFIX  ?= /usr/local
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# the one place the version is written down is src/cli/version.h
VERSION := $(shell sed -n 's/^\#define SCALER_VERSION "\(.*\)"/\1/p' src/cli/version.h)
MANPAGES := $(wildcard doc/scaler*.1)
BUILD   ?= build
WARN    := -Wall -Wextra -Werror
comma   := ,
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -D_GNU_SOURCE -Isrc -Isrc/common -Iarch/$(ARCH)

# The runtime lives in someone else's process: hidden visibility, no PLT
# calls of its own that could be hooked, initial-exec TLS only.
RT_CFLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -fno-omit-frame-pointer \
             -ftls-model=initial-exec -fno-stack-protector -fdata-sections

# Every process pays for each page of the runtime's .bss it touches. Its
# big arrays (the object table, the idle thread, the stub directories)
# are touched only at their start, so the small variables must not sit
# between them: each variable in its own section (-fdata-sections), and
# the linker orders them by alignment, the arrays (32) before the scalars
# (8, 4), which then share one page.
RT_LDFLAGS := -Wl,--sort-section=alignment
# One read+exec segment for the headers, the code and the read-only data,
# not three (-z separate-code, the default): each segment is one more mmap
# for the loader in every process, a VMA made and torn down (~3 us here).
# Nothing of ours is ever writable and executable either way.
RT_LDFLAGS += -Wl,-z,noseparate-code
# No DT_INIT/DT_FINI (-init/-fini naming no symbol): crti.o's _init and
# _fini do nothing here, and lie at the two ends of the code, _fini on a
# page of its own that every exit would fault in.
RT_LDFLAGS += -Wl,-init=sc_no_init -Wl,-fini=sc_no_fini

# The runtime's own calls of these system-call wrappers go straight to the
# kernel (src/runtime/sys.c): each is one import fewer for the loader to
# look up in every process started
RT_SYSCALLS := open openat close read write writev pread fstat stat access unlinkat readlink \
               getcwd fcntl fallocate ftruncate mmap munmap mprotect madvise mremap getpid \
               getppid geteuid uname nanosleep prctl syscall
RT_LDFLAGS += $(patsubst %,-Wl$(comma)--wrap=%,$(RT_SYSCALLS))
# ... which _FORTIFY_SOURCE (Ubuntu's gcc defines it) would undo: pread
# becomes a call of __pread_chk, openat of __openat_2, imports the wrap
# does not catch (tests/e2e/checks/runtime_imports.py)
RT_CFLAGS += -U_FORTIFY_SOURCE

# The hot path is hand-written assembly. On Intel's Skylake family (also
# Cascade Lake, our machines) a jump that crosses or ends on a 32-byte
# boundary is not cached in the decoded-uop cache since the JCC erratum
# microcode: the assembler pads such jumps so that none does. A timed call
# costs ~2 ns less on our machines (doc/performance.md).
ifeq ($(ARCH),x86_64)
RT_ASFLAGS ?= -Wa,-mbranches-within-32B-boundaries
endif

COMMON_SRC := $(wildcard src/common/*.c)
# arch code of the CLI's (scaler record -p calling into another process)
ARCH_CLI   := arch/$(ARCH)/inject.c
RT_SRC     := $(filter-out $(ARCH_CLI),$(wildcard src/runtime/*.c) $(wildcard arch/$(ARCH)/*.c)) \
              src/common/names.c src/common/symbols.c src/common/xz.c src/common/argspec.c \
              src/common/pidstart.c
RT_ASM     := $(wildcard arch/$(ARCH)/*.S)
# the CLI decodes with the runtime's decoder too: walk --deeper's scan of
# call instructions (src/cli/walk_callees.c)
CLI_SRC    := $(wildcard src/cli/*.c) $(COMMON_SRC) arch/$(ARCH)/fnpatch.c arch/$(ARCH)/insnlen.c \
              $(ARCH_CLI)

RT_OBJ  := $(patsubst %,$(BUILD)/obj/rt/%.o,$(RT_SRC) $(RT_ASM))
CLI_OBJ := $(patsubst %,$(BUILD)/obj/cli/%.o,$(CLI_SRC))
DEPS    := $(RT_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

all: $(BUILD)/bin/scaler $(BUILD)/lib/libscaler.so $(BUILD)/lib/libscaler.so-gdb.py

# gdb auto-loads <objfile>-gdb.py from the objfile's directory (once that
# directory is allowed: add-auto-load-safe-path)
$(BUILD)/lib/libscaler.so-gdb.py: scripts/scaler-gdb.py
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/lib/libscaler.so: $(RT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $^ -Wl,-z,now -Wl,-z,relro -Wl,-z,noexecstack $(RT_LDFLAGS) -ldl -lpthread

$(BUILD)/bin/scaler: $(CLI_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -lm -lz

$(BUILD)/obj/rt/%.c.o: %.c
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -MMD -MP -c -o $@ $<

# --args captures values in the middle of the interceptor, where only the
# general registers are saved: that code must touch no other register and
# call nothing (src/runtime/args_hot.c)
$(BUILD)/obj/rt/src/runtime/args_hot.c.o: RT_CFLAGS += -mgeneral-regs-only -fno-builtin \
	-fno-tree-loop-distribute-patterns

$(BUILD)/obj/rt/%.S.o: %.S
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(RT_ASFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/cli/%.c.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

-include $(DEPS)
include tests/unit/unit.mk
include tests/fuzz/fuzz.mk

check: all
	@./tests/run.sh

demo: all
	@./demo/run.sh

check-apps: all
	@./tests/apps/run.sh

bench: all
	@./bench/run.sh

# Everything install puts down is listed once, in INSTALLED, so that
# uninstall removes exactly that. Man pages get the version in their footer.
INSTALLED := $(PREFIX)/bin/scaler $(PREFIX)/lib/libscaler.so $(PREFIX)/lib/libscaler.so-gdb.py \
             $(patsubst doc/%,$(MANDIR)/man1/%,$(MANPAGES)) $(BASHCOMPDIR)/scaler

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BUILD)/bin/scaler $(DESTDIR)$(PREFIX)/bin/scaler
	install -m 644 $(BUILD)/lib/libscaler.so $(DESTDIR)$(PREFIX)/lib/libscaler.so
	install -m 644 scripts/scaler-gdb.py $(DESTDIR)$(PREFIX)/lib/libscaler.so-gdb.py
	for m in $(MANPAGES); do \
		sed 's/^\(\.TH .*\) scaler "User Commands"$$/\1 "scaler $(VERSION)" "User Commands"/' $$m \
			> $(DESTDIR)$(MANDIR)/man1/$${m#doc/} && \
		chmod 644 $(DESTDIR)$(MANDIR)/man1/$${m#doc/} || exit 1; \
	done
	install -m 644 scripts/scaler.bash $(DESTDIR)$(BASHCOMPDIR)/scaler

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

clean:
	rm -rf $(BUILD)

.PHONY: all check check-apps demo bench install uninstall clean
