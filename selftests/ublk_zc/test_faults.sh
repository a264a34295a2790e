#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault loops: for every data path the kernel has, UBLK_ZC_FAULT_ITERS
# times (default 2, debug flavor 1; scripts/stress runs 50), inject
#   kill     SIGKILL the server under I/O: the workload ends with errors
#            (not a hang) and the next server start deletes the device;
#   del      delete the device under I/O from outside (abtool del, and
#            del --async every second round): the workload ends, the
#            server exits by itself, no device is left;
#   ringexit the server's rings close while its requests hold buffers with
#            backing I/O in flight (SIGKILL; SIGTERM every second round);
# and after each round of faults a new device must serve verified I/O
# (restart).  Each round ends with no task in D state, the test with no
# ublk device left.
. "$(dirname "$0")/common.sh"
require_ublk

ITERS=${UBLK_ZC_FAULT_ITERS:-2}
SIZE=$((16 << 20))
if [ "${UBLK_ZC_FLAVOR:-}" = debug ]; then
	ITERS=${UBLK_ZC_FAULT_ITERS:-1}
	SIZE=$((4 << 20))
fi

# load_bg DEV: a random mixed workload that outlives any fault; returns
# once it has I/O done on DEV
load_bg() {
	io_count "$1" || fail "$ctx: no I/O statistics of $1"
	"$UBLK_SRV" load --rw=randrw --bs=16k --iodepth=16 --runtime=120s \
		--no-counters "$1" > "$WORK/load.out" 2>&1 &
	LOAD=$!
	BG_PIDS+=("$LOAD")
	wait_io "$1" $((IO_COUNT + 32)) ||
		{ cat "$WORK/load.out" >&2; fail "$ctx: no I/O on $1"; }
}

# Servers: depth 32 x 128K buffers keep the many starts cheap under TCG.
SERVE=(-t loop -d 32 --max-io 128k)

# start PATH ARGS...: a server whose device is the only one, which
# also proves the device of a server killed before is gone
start() {
	ublk_start "${SERVE[@]}" -p "$@" || fail "$ctx: cannot start a server"
	[ "$(ublk_devs)" = "ublkc$UBLK_ID" ] ||
		fail "$ctx: devices left by earlier servers ($(ublk_devs))"
}

# verify CTX: the device serves verified I/O (a mixed workload whose
# reads are checked against what it wrote; one exec: they are dear here)
verify() {
	"$UBLK_SRV" load --rw=randrw --bs=64k --iodepth=8 --verify --length=2M \
		--size=4M --no-counters "$UBLK_DEV" > "$WORK/load.out" 2>&1 ||
		{ cat "$WORK/load.out" >&2; fail "$1: verified I/O"; }
}

fault_kill() { # path
	local ctx=$ctx
	# the device of the round before is gone; a new one serves
	start "$1" -b "$WORK/backing"
	verify "$ctx: restart"
	ctx="$ctx: kill"
	load_bg "$UBLK_DEV"
	kill -KILL "$UBLK_PID"
	wait_exit "$UBLK_PID" 30 || fail "$ctx: SIGKILLed server still alive after 30 s"
	wait "$UBLK_PID" 2>/dev/null
	UBLK_PID=
	load_must_fail "$ctx" "$LOAD"
	# the dead server's device stays until the next start deletes it
}

fault_del() { # path [--async]
	local del status ctx="$ctx: del$2"
	start "$1" -b "$WORK/backing"
	load_bg "$UBLK_DEV"
	# DEL_DEV drains in-flight requests through the live server, aborts
	# its commands and returns once the server has closed /dev/ublkcN;
	# DEL_DEV_ASYNC (every second round) returns at once
	"$UBLK_SRV" del -n "$UBLK_ID" ${2:+"$2"} 2> "$WORK/del.out" &
	del=$!
	BG_PIDS+=("$del")
	wait_exit "$UBLK_PID" 60 || fail "$ctx: server still running 60 s after abtool del"
	wait "$UBLK_PID"
	status=$?
	UBLK_PID=
	[ $status = 0 ] || fail "$ctx: server exited with $status after abtool del"
	wait_exit "$del" 30 ||
		fail "$ctx: abtool del still waiting 30 s after the server exited"
	wait "$del" || { cat "$WORK/del.out" >&2; fail "$ctx: abtool del failed"; }
	load_must_fail "$ctx" "$LOAD"
	[ -z "$(ublk_devs)" ] || fail "$ctx: device left after abtool del ($(ublk_devs))"
}

# The data path's ring closes while requests hold lent buffers (splice:
# installed with SPLICE_FROM in the registered-buffer table; fused: given
# by a fused command; copy/user_copy: the daemon's own buffer) with a
# backing READ/WRITE on them in flight.  To park them there the backing
# is a second ublk device whose server is SIGSTOPped.  SIGKILL exits the
# ring with the buffers installed; SIGTERM (every second round) makes
# STOP_DEV wait for the parked requests.  The lower server then resumes:
# the parked I/O completes and the buffers must be released.
fault_ringexit() { # path sig
	local lower lower_id status ctx="$ctx: ringexit SIG$2"
	start copy -b "$WORK/backing"
	lower=$UBLK_PID lower_id=$UBLK_ID
	BG_PIDS+=("$lower")
	UBLK_PID=
	ublk_start "${SERVE[@]}" -p "$1" -b "/dev/ublkb$lower_id" ||
		fail "$ctx: cannot start over /dev/ublkb$lower_id"
	load_bg "$UBLK_DEV"
	kill -STOP "$lower"
	wait_inflight "/dev/ublkb$lower_id" ||
		fail "$ctx: no request reached the lower device"
	# let the exit reach the ring (well below the hung-task timeout);
	# quiet: bash reports the SIGKILLed child as it goes
	{
		kill "-$2" "$UBLK_PID"
		nap 0.5
		kill -CONT "$lower"
	} 2>/dev/null
	wait_exit "$UBLK_PID" 60 || fail "$ctx: server alive 60 s after SIG$2 (lower resumed)"
	wait "$UBLK_PID" 2>/dev/null
	status=$?
	UBLK_PID=
	[ "$2" = KILL ] || [ $status = 0 ] || fail "$ctx: server exited with $status on SIG$2"
	load_must_fail "$ctx" "$LOAD"
	# the lower device stops cleanly
	UBLK_PID=$lower UBLK_ID=$lower_id
	ublk_stop
}

make_backing backing "$SIZE" > /dev/null
paths=$(ublk_paths) || exit "$KSFT_FAIL"
[ -n "$paths" ] || skip "no data path available"
[ -z "$(ublk_devs)" ] || fail "ublk devices exist before the test: $(ublk_devs)"
summary=
for path in $paths; do
	for ((it = 1; it <= ITERS; it++)); do
		sig=KILL async=
		((it % 2 == 0)) && sig=TERM async=--async
		ctx="$path round $it/$ITERS"
		fault_kill "$path"
		fault_del "$path" $async
		fault_ringexit "$path" $sig
		no_stuck_tasks "$ctx"
	done
	ctx="$path after $ITERS rounds"
	start "$path" -b "$WORK/backing"
	verify "$ctx: restart"
	ublk_stop
	[ -z "$(ublk_devs)" ] || fail "$ctx: devices left ($(ublk_devs))"
	echo "ok: $path: $ITERS rounds:" \
		"kill $ITERS, del $ITERS, ringexit $ITERS, restart $ITERS"
	summary+=" $path=$((ITERS * 3))"
done
echo "# faults injected per path:$summary"
exit $KSFT_PASS
