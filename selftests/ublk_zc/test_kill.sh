#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Daemon death: SIGKILL the server of a device under I/O, for every data
# path the kernel has.  The workload must end (with errors, not hang),
# and the next abtool start must delete the dead daemon's device.
. "$(dirname "$0")/common.sh"
require_ublk

ran=0
for path in $("$ABTOOL" features --paths | awk '$2 == "yes" {print $1}'); do
	backing=$(make_backing "kill-$path" $((16 << 20)))
	ublk_start -t loop -b "$backing" -p "$path" || continue
	dead=$UBLK_ID
	"$ABTOOL" load --rw=randrw --bs=16k --iodepth=16 --runtime=60s \
		"$UBLK_DEV" > "$WORK/load.out" 2>&1 &
	load=$!
	sleep 1
	kill -KILL "$UBLK_PID"
	wait "$UBLK_PID" 2>/dev/null
	UBLK_PID=
	for i in $(seq 120); do
		kill -0 "$load" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$load" 2>/dev/null; then
		kill -KILL "$load"
		fail "$path: I/O still stuck 60 s after the daemon died"
	fi
	wait "$load" && fail "$path: I/O kept succeeding after the daemon died"

	# a new server deletes the device of the dead one before it starts
	ublk_start -t null -s 16M -p copy || fail "$path: cannot start a new server"
	# ids are reused: the new device may be ublkc$dead again, but it
	# must be the only one
	devs=$(ls /sys/class/ublk-char)
	[ "$devs" = "ublkc$UBLK_ID" ] ||
		fail "$path: ublkc$dead of the killed daemon is still there ($devs)"
	ublk_stop
	echo "ok: $path"
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
