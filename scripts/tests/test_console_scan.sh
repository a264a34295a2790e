#!/usr/bin/env bash
# scripts/console-scan on console samples (console/*.log) in the formats
# Linux 6.12 prints: each report-*.log sample must be caught, naming the
# line given here; the clean boots (a debug boot with the benign ACPI
# AE_AML_LOOP_TIMEOUT errors TCG guests show, a perf boot) must pass.
# Also: the debug config keeps every checker the scan relies on.
# CONSOLE_SCAN=PATH tests another copy.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
cs=${CONSOLE_SCAN:-$TOP/scripts/console-scan}
C=$TESTS_DIR/console

# sample FILE WANT: console-scan fails on FILE and its output holds WANT
sample() {
	local out rc
	out=$("$cs" "$C/$1" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && grep -qF -- "$2" <<< "$out"; then
		t_ok "$1: caught" true
	else
		t_ok "$1: caught" false
		t_diag "exit $rc, want 1 and a line with: $2" "$out"
	fi
}

t_plan 27
sample rcu-stall.log '2:[  204.515235] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
sample rcu-self-stall.log '1:[  205.100111] rcu: INFO: rcu_preempt self-detected stall on CPU'
sample rcu-exp-stall.log 'rcu_preempt detected expedited stalls on CPUs/tasks'
sample slub-bug.log '2:[   88.412900] BUG kmalloc-64 (Not tainted): Poison overwritten'
sample slub-bug-tainted.log 'BUG kmalloc-192 (Tainted: G    B   W         ): Object already free'
sample lockdep-nonstatic-key.log '1:[   61.230001] INFO: trying to register non-static key.'
sample lockdep-off.log 'turning off the locking correctness validator'
sample kmemleak-disabled.log '2:[  95.001900] kmemleak: Kernel memory leak detector disabled'
sample kmemleak-disabled-leaks.log 'kmemleak: Kmemleak disabled without freeing internal data'
sample kmemleak-final-off.log 'kmemleak final scan: FAILED: kmemleak is off'
sample kmemleak-leak.log '1:unreferenced object 0xffff888006b1c000 (size 4096):'
sample kmemleak-warn.log 'kmemleak: Freeing unknown object at 0xffff888004a1b000'
sample soft-lockup.log 'watchdog: BUG: soft lockup - CPU#1 stuck for 126s!'
sample kasan.log 'BUG: KASAN: slab-use-after-free in io_import_fixed'
sample hung-task.log 'INFO: task kworker/u8:3:61 blocked for more than 122 seconds.'
sample warn.log 'WARNING: CPU: 0 PID: 287 at io_uring/rsrc.c:142'

out=$("$cs" "$C/clean-debug-boot.log" 2>&1)
t_is "clean debug boot (ACPI loop timeouts, TSC unstable) passes" "$out (exit $?)" " (exit 0)"
out=$("$cs" --kmemleak "$C/clean-debug-boot.log" 2>&1)
t_is "clean debug boot passes --kmemleak" "$out (exit $?)" " (exit 0)"
out=$("$cs" "$C/clean-perf-boot.log" 2>&1)
t_is "clean perf boot passes" "$out (exit $?)" " (exit 0)"
"$cs" --kmemleak "$C/clean-perf-boot.log" > "$T_TMP/out" 2>&1
t_is "--kmemleak: a console without the final scan fails" "$? $(cat "$T_TMP/out")" \
	"1 console-scan: no kmemleak final scan in the console (kmemleak off or not built in?)"
"$cs" "$T_TMP/no-such.log" > "$T_TMP/out" 2>&1
t_ok "an unreadable log is a report" test "$?" = 1 -a -s "$T_TMP/out"

# the checkers console-scan reads from, on and reporting (not panicking)
dc=$TOP/kconfig/debug.config
for opt in CONFIG_SOFTLOCKUP_DETECTOR=y CONFIG_DETECT_HUNG_TASK=y \
	   CONFIG_DEBUG_KMEMLEAK=y CONFIG_PROVE_LOCKING=y; do
	t_ok "debug.config: $opt" grep -qx "$opt" "$dc"
done
# the no-panic settings are in each base's debug-<base>.config
for dcb in "$TOP"/kconfig/debug-*.config; do
	b=$(basename "$dcb")
	t_ok "$b: no panic on soft lockup or hung task" \
		bash -c "! grep -Eq '^CONFIG_BOOTPARAM_(SOFTLOCKUP|HUNG_TASK)_PANIC=(y|[1-9])' '$dc' '$dcb' &&
			[ \$(grep -Ec '^CONFIG_BOOTPARAM_(SOFTLOCKUP|HUNG_TASK)_PANIC=(n|0)\$' '$dcb') = 2 ]"
done
t_done
