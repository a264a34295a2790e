# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ublk_zc shell tests (sourced).  A test uses
# ublk_start to get a served device in $UBLK_DEV, and ublk_stop (run by
# the EXIT trap) to stop the server and check the device is gone.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the ublk server (abtool's serve, load, features, del), built beside the
# tests so that they run in a kernel tree too
UBLK_SRV=${UBLK_SRV:-$HERE/ublk_zc_srv}
WORK=${UBLK_ZC_WORK:-$(mktemp -d /tmp/ublk_zc.XXXXXX)}
UBLK_PID=
UBLK_ID=
UBLK_DEV=

# UBLK_ZC_VARIANT: the kernel variant the suite runs on (the project's
# scripts/check and scripts/stress set it).  Unset (a kernel developer
# running the kselftest by hand), whatever the kernel lacks skips.  Set,
# what that variant must have fails when absent: root, ublk, the server, the
# tools, and the data paths its line in ./variants lists (the registry
# of the variants, which the project's scripts read too); so does a data
# path it must not have (a kernel of another variant).
VARIANT=${UBLK_ZC_VARIANT:-}

fail() { echo "FAIL: $*" >&2; exit $KSFT_FAIL; }
skip() {
	[ -z "$VARIANT" ] || fail "$* (UBLK_ZC_VARIANT=$VARIANT must have it)"
	skip_checked "$@"
}
# skip_checked: skip on a verdict that already weighed the variant (a
# program that fails by itself when the variant must have what it lacks)
skip_checked() {
	echo "SKIP: $*" >&2
	exit $KSFT_SKIP
}

# variant_paths: the data paths the variant must have ("" without one)
variant_paths() {
	local line
	[ -n "$VARIANT" ] || return 0
	line=$(awk -v v="$VARIANT" '!/^#/ && $1 == v { $1 = $2 = $3 = ""; print; exit }' \
		"$HERE/variants")
	[ -n "$line" ] ||
		fail "UBLK_ZC_VARIANT=$VARIANT: unknown variant (known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$HERE/variants"))"
	# shellcheck disable=SC2086 # word splitting drops the blanked fields
	echo $line
}

# must_have PATH: true when the variant must have data path PATH
must_have() { [[ " $(variant_paths) " == *" $1 "* ]]; }

require_ublk() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -c /dev/ublk-control ] || skip "no /dev/ublk-control (CONFIG_BLK_DEV_UBLK)"
	[ -x "$UBLK_SRV" ] || skip "ublk_zc_srv not built ($UBLK_SRV)"
}

# make_backing NAME SIZE: a file on the guest's tmpfs, filled with noise
# so that a read of stale data cannot pass a comparison.
make_backing() {
	local f=$WORK/$1
	head -c "$2" /dev/urandom > "$f" || fail "cannot create $f"
	echo "$f"
}

# how long a server may take to say it is live
READY_SECS=30
[ "${UBLK_ZC_FLAVOR:-}" = debug ] && READY_SECS=180

# ublk_start SERVE_ARGS...: start abtool serve, wait until it is live.
# Returns KSFT_SKIP (after printing why) when the kernel lacks the path;
# fails instead when the variant must have it.
ublk_start() {
	local fifo=$WORK/ready status path=copy prev='' a
	for a in "$@"; do	# the data path: -p PATH (abtool's default: copy)
		case $prev in -p|--path) path=$a ;; esac
		prev=$a
	done
	# one fifo for every start: an exec costs seconds on the debug flavor
	[ -p "$fifo" ] || mkfifo "$fifo"
	"$UBLK_SRV" serve --ready-fd 3 "$@" 3> "$fifo" 2>> "$WORK/serve.log" &
	UBLK_PID=$!
	UBLK_ID=
	# a debug kernel under TCG on a busy host has taken over 30 s to
	# start a server; a server that is never ready still fails here
	read -r -t "$READY_SECS" UBLK_ID < "$fifo"
	if [ -z "$UBLK_ID" ]; then
		wait "$UBLK_PID"
		status=$?
		UBLK_PID=
		cat "$WORK/serve.log"
		if [ "$status" = "$KSFT_SKIP" ]; then
			! must_have "$path" ||
				fail "abtool serve $*: the kernel lacks data path $path, which UBLK_ZC_VARIANT=$VARIANT must have"
			return $KSFT_SKIP
		fi
		fail "abtool serve $* was not ready within $READY_SECS s (status $status)"
	fi
	UBLK_DEV=/dev/ublkb$UBLK_ID
	local i
	for ((i = 0; i < 100; i++)); do [ -b "$UBLK_DEV" ] && return 0; nap 0.05; done
	fail "$UBLK_DEV did not appear"
}

# ublk_stop: SIGTERM the server; it must exit 0 and delete the device.
ublk_stop() {
	[ -n "$UBLK_PID" ] || return 0
	kill -TERM "$UBLK_PID"
	wait "$UBLK_PID" || fail "abtool serve exited with $? on SIGTERM"
	UBLK_PID=
	[ ! -e "/sys/class/ublk-char/ublkc$UBLK_ID" ] ||
		fail "ublkc$UBLK_ID still exists after the server stopped"
}

# ublk_paths: the data paths the running kernel can serve, one a line
# (only those named in UBLK_ZC_PATHS when that is set).  With a variant,
# they must be exactly the variant's (within UBLK_ZC_PATHS): a path
# missing fails, and so does one the variant must not have (callers:
# paths=$(ublk_paths) || exit $KSFT_FAIL).
ublk_paths() {
	local p want=${UBLK_ZC_PATHS:-} have=() need=() missing=() extra=()
	for p in $("$UBLK_SRV" features --paths | awk '$2 == "yes" {print $1}'); do
		[ -z "$want" ] || [[ " $want " == *" $p "* ]] && have+=("$p")
	done
	if [ -n "$VARIANT" ]; then
		for p in $(variant_paths); do
			[ -z "$want" ] || [[ " $want " == *" $p "* ]] && need+=("$p")
		done
		for p in "${need[@]}"; do
			[[ " ${have[*]} " == *" $p "* ]] || missing+=("$p")
		done
		for p in "${have[@]}"; do
			[[ " ${need[*]} " == *" $p "* ]] || extra+=("$p")
		done
		[ ${#missing[@]} = 0 ] ||
			fail "UBLK_ZC_VARIANT=$VARIANT must have data path(s) ${missing[*]}; abtool features --paths: $("$UBLK_SRV" features --paths | tr '\n' ';')"
		[ ${#extra[@]} = 0 ] ||
			fail "the kernel has data path(s) ${extra[*]}, which UBLK_ZC_VARIANT=$VARIANT must not have (another variant's kernel?)"
	fi
	for p in "${have[@]}"; do echo "$p"; done
}

# ublk_devs: the ublk devices that exist (e.g. "ublkc0 ublkc1"), or "".
ublk_devs() {
	local d=() f
	for f in /sys/class/ublk-char/*; do [ -e "$f" ] && d+=("${f##*/}"); done
	echo "${d[*]}"
}

# nap SECS: sleep without a fork and exec (one costs ~0.1 s under TCG and
# far more on the debug flavor; the polling loops below nap often): a
# read that times out on a pipe nobody writes.
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD" _ || :; }

# Background processes (workloads, extra servers) the EXIT trap kills,
# and mount points it unmounts first (a server cannot stop under a mount).
BG_PIDS=()
MOUNTS=()

# wait_exit PID SECS: wait (polling) until the child PID has ended;
# returns 1 if it still runs after SECS seconds.
wait_exit() {
	local i
	# bash reports a killed child ("Killed ...") while we poll: not news
	{
		for ((i = 0; i < $2 * 10; i++)); do
			kill -0 "$1" || return 0
			nap 0.1
		done
		! kill -0 "$1"
	} 2>/dev/null
}

# load_must_fail WHAT PID: a workload whose device died must end within
# 60 s (a hang is the bug) and with an error (success means I/O went
# nowhere); its output is in $WORK/load.out.
load_must_fail() {
	if ! wait_exit "$2" 60; then
		hang_report
		kill -KILL "$2"
		wait "$2" 2>/dev/null
		fail "$1: I/O still stuck 60 s after the fault"
	fi
	if wait "$2"; then
		cat "$WORK/load.out" >&2
		fail "$1: I/O kept succeeding after the fault"
	fi
}

# io_count DEV: set IO_COUNT to the I/Os block device DEV (/dev/ublkbN)
# has completed since it appeared.
io_count() {
	local r w
	read -r r _ _ _ w _ < "/sys/block/${1#/dev/}/stat" || return 1
	IO_COUNT=$((r + w))
}

# wait_io DEV N: wait (up to 30 s) until DEV has completed N I/Os in all,
# so that a fault hits a device under I/O.
wait_io() {
	local i
	for ((i = 0; i < 300; i++)); do
		io_count "$1" || return 1
		[ "$IO_COUNT" -ge "$2" ] && return 0
		nap 0.1
	done
	return 1
}

# wait_inflight DEV: wait (up to 30 s) until DEV has requests in flight.
wait_inflight() {
	local f=/sys/block/${1#/dev/}/inflight r w i
	for ((i = 0; i < 300; i++)); do
		read -r r w < "$f" || return 1
		[ $((r + w)) -gt 0 ] && return 0
		nap 0.1
	done
	return 1
}

# d_state_tasks: "tid comm wchan" of each task in uninterruptible sleep.
d_state_tasks() {
	local f s t
	for f in /proc/[0-9]*/task/[0-9]*/stat; do
		# a task that exited since the glob: the redirection's error
		# comes before a 2>/dev/null of read's own
		{ read -r s < "$f"; } 2>/dev/null || continue
		s=${s##*) }
		[ "${s%% *}" = D ] || continue
		t=${f%/stat}
		echo "${t##*/} $(cat "$t/comm" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
	done
}

# hang_report: what a hang needs to be understood, on stderr: each ublk
# disk's queue state and requests still held (blk-mq debugfs) and the
# ublk server's io_uring state (fdinfo of its rings, if it still lives);
# the blocked tasks' stacks go to the console (sysrq w).
hang_report() {
	local f out
	# debugfs files have no size: read each, print what is not empty
	# (a disk's directory goes early in del_gendisk(): a hang in STOP_DEV
	# shows nothing here)
	for f in /sys/kernel/debug/block/ublkb*/{state,requeue_list} \
		 /sys/kernel/debug/block/ublkb*/hctx*/{state,busy,dispatch} \
		 /sys/kernel/debug/block/ublkb*/sched/*dispatch*; do
		out=$(cat "$f" 2>/dev/null) && [ -n "$out" ] || continue
		echo "# $f:" >&2
		sed 's/^/#   /' <<< "$out" >&2
	done
	for f in /proc/[0-9]*/fdinfo/*; do
		grep -q '^SqMask' "$f" 2>/dev/null || continue
		echo "# io_uring $f ($(cat "${f%%/fdinfo/*}/comm" 2>/dev/null)):" >&2
		grep -E '^(SqHead|SqTail|CachedSqHead|CqHead|CqTail|CachedCqTail|UserBufs|CqOverflowList|PollList)' "$f" |
			sed 's/^/#   /' >&2
	done
	echo w > /proc/sysrq-trigger 2>/dev/null
}

# no_stuck_tasks WHAT: fail if some task stays in D state for 10 s.  A
# short D sleep (a kworker writing back) is normal and shows up under
# TCG; one that lasts is a leaked request or reference.  On failure the
# blocked tasks' stacks go to the console (sysrq w).
no_stuck_tasks() {
	local i d
	for ((i = 0; i < 20; i++)); do
		d=$(d_state_tasks)
		[ -z "$d" ] && return 0
		nap 0.5
	done
	hang_report
	fail "$1: tasks stuck in D state for 10 s (stacks: sysrq w in the console): ${d//$'\n'/; }"
}

cleanup() {
	local rc=$? p
	for p in "${MOUNTS[@]}"; do
		mountpoint -q "$p" && umount "$p"
	done
	[ -n "$UBLK_PID" ] && kill -KILL "$UBLK_PID" 2>/dev/null && wait "$UBLK_PID" 2>/dev/null
	for p in "${BG_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -z "${UBLK_ZC_WORK:-}" ] && rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
