# shellcheck shell=bash
# TAP helpers for the host-side tests of the project's scripts
# (scripts/tests/test_*.sh, run by scripts/tests/run in make check's unit
# stage).  A test sources this, calls t_plan N, then t_ok / t_is per
# check, and ends with t_done.
set -uo pipefail

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the checkout the tests run against, for the tests that source this
# shellcheck disable=SC2034
TOP=$(cd "$TESTS_DIR/../.." && pwd)
T_NUM=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/script-tests.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT

T_PLAN=
t_plan() {
	T_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}
t_diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# t_ok DESC CMD...: passes when CMD succeeds (status: whether it passed)
t_ok() {
	local desc=$1
	shift
	T_NUM=$((T_NUM + 1))
	if "$@"; then
		echo "ok $T_NUM $desc"
	else
		echo "not ok $T_NUM $desc"
		T_FAILED=$((T_FAILED + 1))
		return 1
	fi
}

# t_is DESC GOT WANT: passes when the strings are equal
t_is() {
	T_NUM=$((T_NUM + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $T_NUM $1"
	else
		echo "not ok $T_NUM $1"
		t_diag "got:  $2" "want: $3"
		T_FAILED=$((T_FAILED + 1))
		return 1
	fi
}

# t_skip DESC WHY
t_skip() {
	T_NUM=$((T_NUM + 1))
	echo "ok $T_NUM $1 # SKIP $2"
}

# t_done: the exit status; a count that differs from the plan fails the
# test here, where the reader sees which file miscounted
t_done() {
	if [ "$T_NUM" != "$T_PLAN" ]; then
		echo "# planned $T_PLAN checks, ran $T_NUM"
		exit 1
	fi
	[ "$T_FAILED" = 0 ]
	exit $?
}
