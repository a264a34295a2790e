#!/usr/bin/env bash
# make check's in-tree run of selftests/ublk_zc (lib.sh: intree_copy,
# intree_make; guest-tests with UBLK_ZC_INTREE=1), on a stub checkout and
# a stub kernel tree: the copy holds what git tracks or would track and
# nothing else (no build products, nothing of an earlier copy); in the
# guest, kselftest's own Makefile runs the tests, and a test that fails
# in there fails the stage's TAP (tap-summary), kselftest's wrapping
# notwithstanding.  The kselftest framework is the pristine kernel's
# (skipped when the kernel source is not extracted).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
F=$T_TMP/top
B=$F/build
ST=$F/selftests/ublk_zc
KSFT=$TOP/build/trees/pristine/tools/testing/selftests

# stub checkout: the real lib.sh and guest-tests, and a ublk_zc target of
# three shell tests: one passes, one fails, one skips
mkdir -p "$F/scripts" "$ST" "$B/trees/splice-rsrc/tools/testing" \
	"$B/headers/splice-rsrc/include"
cp "$TOP/scripts/lib.sh" "$TOP/scripts/guest-tests" "$F/scripts/"
printf 'TEST_PROGS := t_pass.sh t_fail.sh t_skip.sh\ninclude ../lib.mk\n' > "$ST/Makefile"
printf 'timeout=60\n' > "$ST/settings"
for t in pass:0 fail:1 skip:4; do
	printf '#!/bin/sh\nexit %s\n' "${t#*:}" > "$ST/t_${t%:*}.sh"
	chmod +x "$ST/t_${t%:*}.sh"
done
printf '*.o\n' > "$ST/.gitignore"
echo 'int x;' > "$ST/built.o"	# a build product: ignored
echo new > "$ST/untracked.txt"	# not committed yet, not ignored
git -C "$F" init -q && git -C "$F" add selftests &&
	git -C "$F" rm -q --cached selftests/ublk_zc/untracked.txt

# in_lib CMD: CMD in a shell that sourced the stub checkout's lib.sh
in_lib() {
	# shellcheck disable=SC2016 # the inner shell expands them
	BUILD=$B bash -c '. "$1/scripts/lib.sh"; shift; eval "$@"' _ "$F" "$@" 2>&1
}

t_plan 7
dst=$B/trees/splice-rsrc/tools/testing/selftests/ublk_zc
mkdir -p "$dst" && echo stale > "$dst/stale"
in_lib 'intree_copy splice-rsrc' > /dev/null
t_is "intree_copy: what git tracks or would track, no build product, no stale file" \
	"$(cd "$dst" && find . -type f | sort | tr '\n' ' ')" \
	"./.gitignore ./Makefile ./settings ./t_fail.sh ./t_pass.sh ./t_skip.sh ./untracked.txt "

if [ ! -f "$KSFT/lib.mk" ]; then
	for i in 2 3 4 5 6 7; do t_skip "in-tree case $i" "no kernel source ($KSFT)"; done
	t_done
fi
# the stub kernel tree: the pristine kselftest framework and what its
# Makefile includes from the tree
mkdir -p "$B/trees/splice-rsrc/scripts"
cp "$KSFT/../../../scripts/subarch.include" "$B/trees/splice-rsrc/scripts/"
cp "$KSFT/Makefile" "$KSFT/lib.mk" "$B/trees/splice-rsrc/tools/testing/selftests/"
cp -r "$KSFT/kselftest" "$B/trees/splice-rsrc/tools/testing/selftests/"
# shellcheck disable=SC2016 # the inner shell expands it
in_lib 'UBLK_ZC_VARIANT=splice-rsrc UBLK_ZC_INTREE=1 "$TOP/scripts/guest-tests"' \
	> "$T_TMP/intree.tap"
rc=$?
t_is "guest-tests UBLK_ZC_INTREE=1: exit status" "$rc" 0
t_ok "... runs the tree's copy through kselftest's Makefile" \
	grep -q '^ok 1 selftests: ublk_zc: t_pass.sh$' "$T_TMP/intree.tap"
t_ok "... the failing test is reported as failed" \
	grep -q '^not ok 2 selftests: ublk_zc: t_fail.sh' "$T_TMP/intree.tap"
t_is "... and counts as failed in the stage's summary" \
	"$("$TOP/scripts/tap-summary" "$T_TMP/intree.tap" 2>&1)" \
	"1 passed, 1 failed, 1 skipped"

# guest-tests without UBLK_ZC_INTREE: tests.list through the pristine
# tree's kselftest runner; UBLK_ZC_TESTS narrows it, a name not in the
# list stops the run before anything runs
mkdir -p "$B/trees/pristine/tools/testing/selftests"
cp -r "$KSFT/kselftest" "$B/trees/pristine/tools/testing/selftests/"
echo "t_pass.sh t_fail.sh t_skip.sh" > "$ST/tests.list"
# shellcheck disable=SC2016 # the inner shell expands it
in_lib 'UBLK_ZC_VARIANT=splice-rsrc UBLK_ZC_TESTS="t_skip.sh t_pass.sh" \
	"$TOP/scripts/guest-tests"' > "$T_TMP/narrow.tap"
t_is "guest-tests UBLK_ZC_TESTS: only those, in tests.list's order" \
	"$(sed -n 's/^\(ok [0-9]\) selftests: .*: \(t_[a-z]*.sh\).*/\1 \2/p' "$T_TMP/narrow.tap" | tr '\n' ' ')" \
	"ok 1 t_pass.sh ok 2 t_skip.sh "
# shellcheck disable=SC2016 # the inner shell expands it
out=$(in_lib 'UBLK_ZC_VARIANT=splice-rsrc UBLK_ZC_TESTS="t_pass.sh t_nope.sh" \
	"$TOP/scripts/guest-tests"')
t_ok "... a program not in tests.list: an error naming it, nothing run" \
	eval '[[ $out == *"t_nope.sh is not in tests.list"* && $out != *t_pass.sh\ \#* && $out != *"ok 1"* ]]'
t_done
