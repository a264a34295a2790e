#!/usr/bin/env bash
# scripts/tap-summary on synthetic TAP (tap/*.tap): what kselftest's
# runner, the kselftest harness, `make test` and scripts/lib.sh's
# step_failed print.  A run must not pass by not running: an unmet plan,
# an empty file or stream, "Bail out!" and an all-skipped run fail.
# TAP_SUMMARY=PATH tests another copy (e.g. an older one).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
ts=${TAP_SUMMARY:-$TOP/scripts/tap-summary}
F=$TESTS_DIR/tap

# check DESC WANT_LINE WANT_RC [STDERR_PATTERN] -- FILE...
check() {
	local desc=$1 want=$2 wrc=$3 pat=${4:-} got rc files=()
	shift 4
	[ "${1:-}" = -- ] && shift
	for f in "$@"; do files+=("$F/$f"); done
	got=$("$ts" "${files[@]}" 2> "$T_TMP/err")
	rc=$?
	t_is "$desc" "$got (exit $rc)" "$want (exit $wrc)"
	if [ -n "$pat" ]; then
		t_ok "$desc: names why" grep -q -- "$pat" "$T_TMP/err" ||
			t_diag "stderr: $(cat "$T_TMP/err")"
	fi
}

t_plan 28
check "nested runner output passes" "8 passed, 0 failed, 2 skipped" 0 "" -- runner-pass.tap
check "make test output (two streams) passes" "3 passed, 0 failed, 0 skipped" 0 "" -- unit-pass.tap
check "a skipped variant next to a passing run" "8 passed, 0 failed, 3 skipped" 0 "" -- runner-pass.tap variant-skip.tap
check "trailing plan" "2 passed, 0 failed, 0 skipped" 0 "" -- trailing-plan.tap
check "unit binary cut off, next binary follows" "2 passed, 1 failed, 0 skipped" 1 "plan 1..3 but 1 result" -- unit-cut.tap
check "unit binary cut off at the end" "2 passed, 1 failed, 0 skipped" 1 "plan 1..4 but 2 result" -- unit-cut-last.tap
check "program's plan unmet though the runner says ok" "3 passed, 1 failed, 0 skipped" 1 "plan 1..4 but 2 result" -- nested-cut.tap
check "crashed program counts once" "2 passed, 1 failed, 0 skipped" 1 "" -- nested-crash.tap
check "runner cut off by a timeout" "1 passed, 2 failed, 0 skipped" 1 "plan 1..3 but 1 result" -- runner-timeout.tap
check "step failure after a complete run counts once" "1 passed, 1 failed, 0 skipped" 1 "" -- report-after-pass.tap
check "empty nested stream" "1 passed, 1 failed, 0 skipped" 1 "empty TAP stream" -- empty-stream.tap
check "all skipped" "0 passed, 1 failed, 3 skipped" 1 "nothing passed" -- all-skipped.tap
check "an expected failure counts as skipped" "1 passed, 0 failed, 2 skipped" 0 "" -- xfail.tap
check "expected failures alone are not \"nothing passed\"" "0 passed, 0 failed, 2 skipped" 0 "" -- xfail-only.tap
check "a failed test" "2 passed, 1 failed, 0 skipped" 1 "" -- failed.tap
check "Bail out! counts once" "0 passed, 1 failed, 0 skipped" 1 "Bail out!" -- bail-out.tap
check "an empty file among passing ones" "8 passed, 1 failed, 2 skipped" 1 "empty.tap:0: empty file" -- runner-pass.tap empty.tap
check "a file without TAP among passing ones" "3 passed, 1 failed, 0 skipped" 1 "no TAP results" -- unit-pass.tap no-tap.tap
got=$("$ts" < /dev/null 2> /dev/null)
t_is "no input at all" "$got (exit $?)" "0 passed, 1 failed, 0 skipped (exit 1)"
t_done
