# tests/fuzz/fuzz.mk - the profile reader's fuzzer (tests/fuzz/fuzz_profile.c),
# included by the top-level Makefile after tests/unit/unit.mk (ASAN_FLAGS,
# REPORT_SRC).
#   make fuzz        FUZZ_CASES cases (default 1000000) from SEED (default:
#                    the time) on profiles of the e2e programs recorded now
#                    (tests/fuzz/corpus.sh) and one crafted by the fuzzer
#   make fuzz-check  a round of FUZZ_SECONDS (default 5): one PASS/FAIL
#                    line, run by tests/run.sh

FUZZ_BIN     := $(BUILD)/tests/fuzz_profile
FUZZ_CORPUS  := $(BUILD)/fuzz/corpus
FUZZ_CASES   ?= 1000000
FUZZ_SECONDS ?= 5

# UBSan as the unit tests run it, and out-of-range conversions of floating
# point figures to integers (not part of gcc's -fsanitize=undefined)
FUZZ_FLAGS := $(ASAN_FLAGS) -fsanitize=float-cast-overflow

$(FUZZ_BIN): tests/fuzz/fuzz_profile.c $(COMMON_SRC) $(REPORT_SRC) src/cli/report.h \
		src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUZZ_FLAGS) -Isrc/cli -o $@ $< $(REPORT_SRC) $(COMMON_SRC) -ldl -lm -lz

fuzz: all $(FUZZ_BIN)
	@./tests/fuzz/corpus.sh $(BUILD)
	$(FUZZ_BIN) --cases $(FUZZ_CASES) $(if $(SEED),--seed $(SEED)) $(FUZZ_CORPUS)/*

fuzz-check: all $(FUZZ_BIN)
	@./tests/fuzz/corpus.sh $(BUILD)
	@$(FUZZ_BIN) --seconds $(FUZZ_SECONDS) --pass fuzz-reader $(if $(SEED),--seed $(SEED)) \
		$(FUZZ_CORPUS)/*

.PHONY: fuzz fuzz-check
