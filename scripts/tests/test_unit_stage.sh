#!/usr/bin/env bash
# make check's host unit stage (scripts/lib.sh host_unit_tests) on a
# stub tree: a unit-test binary that aborts before printing any TAP makes
# `make test` fail; that status must end as a failed test, not "N passed".
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

# stub_tree DIR MAKE_TEST_RECIPE: the project's lib.sh and tap-summary,
# a tools/abtool/Makefile whose test target runs RECIPE, and a passing
# scripts/tests/run
stub_tree() {
	mkdir -p "$1/scripts/tests" "$1/tools/abtool" "$1/out"
	cp "$TOP/scripts/lib.sh" "$TOP/scripts/tap-summary" "$1/scripts/"
	printf '#!/bin/sh\nprintf "TAP version 13\\n1..1\\nok 1 stub\\n"\n' > "$1/scripts/tests/run"
	chmod +x "$1/scripts/tests/run"
	printf 'test:\n\t%s\n' "$2" > "$1/tools/abtool/Makefile"
}

unit_stage() { # DIR: host_unit_tests, then the closing line over OUT
	(
		# shellcheck source=/dev/null
		. "$1/scripts/lib.sh"
		host_unit_tests "$1/out"
	) > "$1/stage.log" 2>&1
	"$1/scripts/tap-summary" "$1"/out/*.tap 2> /dev/null
}

t_plan 4
pass='printf "TAP version 13\n1..2\nok 1 a\nok 2 b\n"'
abort="$pass; sh -c 'kill -ABRT \$\$\$\$'"

stub_tree "$T_TMP/ok" "@$pass"
t_is "passing unit tests pass" "$(unit_stage "$T_TMP/ok")" "3 passed, 0 failed, 0 skipped"

stub_tree "$T_TMP/abort" "@$abort"
t_is "a binary that aborts before its TAP fails the stage" \
	"$(unit_stage "$T_TMP/abort")" "3 passed, 1 failed, 0 skipped"
t_ok "the failure names make test" \
	grep -q "not ok 1 make test (abtool unit tests) exited with 2" "$T_TMP/abort/out/unit.tap"

stub_tree "$T_TMP/silent" "@exit 3"
t_is "make test failing without any output fails the stage" \
	"$(unit_stage "$T_TMP/silent")" "1 passed, 1 failed, 0 skipped"
t_done
