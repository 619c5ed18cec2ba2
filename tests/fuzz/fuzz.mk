# tests/fuzz/fuzz.mk - the profile reader's fuzzer (tests/fuzz/fuzz_profile.c),
# included by the top-level Makefile after tests/unit/unit.mk (ASAN_FLAGS,
# REPORT_SRC).
#   make fuzz        FUZZ_CASES cases (default 1000000) from SEED (default:
#                    the time) on profiles of the e2e programs recorded now
#                    (tests/fuzz/corpus.sh) and one crafted by the fuzzer,
#                    shared by FUZZ_JOBS processes (default: the CPUs)
#   make fuzz-check  a round of FUZZ_SECONDS (default 5): one PASS/FAIL
#                    line, run by tests/run.sh

FUZZ_BIN     := $(BUILD)/tests/fuzz_profile
FUZZ_CORPUS  := $(BUILD)/fuzz/corpus
FUZZ_CASES   ?= 1000000
FUZZ_SECONDS ?= 5
FUZZ_JOBS    ?= $(shell nproc)

# UBSan as the unit tests run it, and out-of-range conversions of floating
# point figures to integers (not part of gcc's -fsanitize=undefined)
FUZZ_FLAGS := $(ASAN_FLAGS) -fsanitize=float-cast-overflow

$(FUZZ_BIN): tests/fuzz/fuzz_profile.c $(COMMON_SRC) $(REPORT_SRC) src/cli/report.h \
		src/cli/model.h $(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(FUZZ_FLAGS) -Isrc/cli -o $@ $< $(REPORT_SRC) $(COMMON_SRC) -ldl -lm -lz

# each job runs its own slice of the case numbers; any job's failure fails
fuzz: all $(FUZZ_BIN)
	@./tests/fuzz/corpus.sh $(BUILD)
	@seed=$${SEED:-$$(date +%s)}; per=$$(( ($(FUZZ_CASES) + $(FUZZ_JOBS) - 1) / $(FUZZ_JOBS) )); \
	pids=; for j in $$(seq 0 $$(( $(FUZZ_JOBS) - 1 ))); do \
		echo "$(FUZZ_BIN) --seed $$seed --first $$(( j * per )) --cases $$per $(FUZZ_CORPUS)/*"; \
		$(FUZZ_BIN) --seed $$seed --first $$(( j * per )) --cases $$per $(FUZZ_CORPUS)/* & \
		pids="$$pids $$!"; \
	done; rc=0; for p in $$pids; do wait $$p || rc=1; done; exit $$rc

fuzz-check: all $(FUZZ_BIN)
	@./tests/fuzz/corpus.sh $(BUILD)
	@$(FUZZ_BIN) --seconds $(FUZZ_SECONDS) --pass fuzz-reader $(if $(SEED),--seed $(SEED)) \
		$(FUZZ_CORPUS)/*

.PHONY: fuzz fuzz-check
