# ublk zero-copy: the 2023 designs against the merged one, measured.
#
#   make ab       build what is missing, boot each variant, run the A/B
#                 matrix, print the comparison (QUICK=1: ~3 min smoke)
#   make check    every test: host unit tests, then the selftests booted
#                 on one kernel per variant: base/perf, splice-rsrc/debug,
#                 the others' perf kernels (CHECK_DEBUG="V ..." for other
#                 debug kernels, CHECK_MATRIX="V/F ..." or "all" for
#                 another matrix)
#   make stress   the long run: each variant's debug kernel with 50 fault
#                 iterations, minutes of verified stress, 20000 fuzz ops
#   make kernels  build every variant x flavor that has patches
#                 (VARIANTS="..." FLAVORS="..." for some of them;
#                 VARIANTS="regbuf" for the variants the defaults leave
#                 out, see VARIANTS_EXTRA in scripts/lib.sh)
#   make lint     checkpatch --strict, per-patch builds, sparse
#   make clean    remove build/ (the ccache in ~/.cache/ccache stays)
#
# Each target installs what it needs (apt packages, kernel source).
# The variants and flavors are listed once, in scripts/lib.sh.

SHELL := /bin/bash

all: check

deps:
	scripts/deps

kernels:
	FLAVORS="$(FLAVORS)" scripts/kernels $(VARIANTS)

check:
	scripts/check

stress:
	scripts/stress

ab:
	scripts/ab $(if $(QUICK),--quick) $(AB_ARGS)

lint:
	scripts/lint

clean:
	rm -rf build
	$(MAKE) -C tools/abtool clean

.PHONY: all deps kernels check stress ab lint clean
