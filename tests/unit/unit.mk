# tests/unit/unit.mk - unit tests of src/common, included by the top-level
# Makefile. `make unit` builds each tests/unit/test_*.c together with all of
# src/common into build/tests/ and runs them; any failure fails the target.

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/check.h $(COMMON_SRC) \
		$(wildcard src/common/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(COMMON_SRC) -lm

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

.PHONY: unit
