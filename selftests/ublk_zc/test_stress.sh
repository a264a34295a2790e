#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Integrity under stress: for every data path the kernel has, mirror-2
# and stripe-2 (and loop) devices with two queues, each driven by two verifying
# workloads at once on disjoint halves:
#   A  4K random mixed I/O, two jobs (threads with their own rings);
#   B  odd-sized (60.5K: not a page multiple, straddles stripe chunks)
#      random mixed I/O, write-heavy.
# Every read is checked against the generation last written there; a
# verify pass over each half follows.  Zero mismatches; mirror legs end
# identical.
# UBLK_ZC_STRESS_SECS: seconds of load per data path, split evenly over
# the targets, UBLK_ZC_STRESS_TARGETS (default mirror-2 stripe-2 for 8 s;
# the debug flavor mirror-2 for 4 s; scripts/stress adds loop and runs
# minutes).
. "$(dirname "$0")/common.sh"
require_ublk

SECS=${UBLK_ZC_STRESS_SECS:-8}
TARGETS=${UBLK_ZC_STRESS_TARGETS:-mirror-2 stripe-2}
SIZE=$((4 << 20))
if [ "${UBLK_ZC_FLAVOR:-}" = debug ]; then
	SECS=${UBLK_ZC_STRESS_SECS:-4}
	TARGETS=${UBLK_ZC_STRESS_TARGETS:-mirror-2}
	SIZE=$((2 << 20))
fi
read -r -a targets <<< "$TARGETS"
T=$((SECS / ${#targets[@]}))
[ $T -ge 1 ] || T=1

BS_A=4k BS_B=61952

# stress CTX DEV: both workloads at once, then a verify pass of each half
stress() {
	local sectors half a b ra rb
	read -r sectors < "/sys/block/${2#/dev/}/size" || fail "$1: no size of $2"
	half=$((sectors * 512 / 2 / 65536 * 65536))
	"$UBLK_SRV" load --rw=randrw --bs=$BS_A --iodepth=16 --jobs=2 --verify \
		--seed=1 --length=$half --runtime=${T}s --no-counters \
		"$2" > "$WORK/a.out" 2>&1 &
	a=$!
	"$UBLK_SRV" load --rw=randrw --bs=$BS_B --iodepth=8 --verify --seed=2 \
		--rwmixread=30 --offset=$half --runtime=${T}s --no-counters \
		"$2" > "$WORK/b.out" 2>&1 &
	b=$!
	BG_PIDS+=("$a" "$b")
	wait "$a"; ra=$?
	wait "$b"; rb=$?
	# exit status 3: verify mismatches
	[ $ra = 0 ] || { cat "$WORK/a.out"; fail "$1: 4K workload exited with $ra"; }
	[ $rb = 0 ] || { cat "$WORK/b.out"; fail "$1: 60.5K workload exited with $rb"; }
	"$UBLK_SRV" load --verify-only --bs=$BS_A --iodepth=16 --seed=1 --length=$half \
		--no-counters "$2" > "$WORK/v.out" 2>&1 ||
		{ cat "$WORK/v.out"; fail "$1: verify pass of the 4K half"; }
	"$UBLK_SRV" load --verify-only --bs=$BS_B --iodepth=8 --seed=2 --offset=$half \
		--no-counters "$2" > "$WORK/v.out" 2>&1 ||
		{ cat "$WORK/v.out"; fail "$1: verify pass of the 60.5K half"; }
}

# ios OUT: the number of I/Os a load output reports ("  all:   ios=N ...")
ios() {
	local tag n
	while read -r tag n _; do
		[ "$tag" = all: ] && echo "${n#ios=}"
	done < "$1"
}

paths=$(ublk_paths) || exit "$KSFT_FAIL"
ran=0
for path in $paths; do
	for target in "${targets[@]}"; do
		legs=1
		case $target in *-*) legs=${target#*-} ;; esac
		# two queues: two server threads with their own rings; 32 x
		# 128K buffers per queue keep the start cheap under TCG
		args=(-t "${target%-*}" -p "$path" -q 2 -d 32 --max-io 128k --chunk 64k)
		# legs start equal: parts no workload writes (the tail after
		# the last 60.5K block) must not count as a difference
		args+=(-b "$(make_backing s0 "$SIZE")")
		for ((i = 1; i < legs; i++)); do
			cp "$WORK/s0" "$WORK/s$i" && args+=(-b "$WORK/s$i")
		done
		ublk_start "${args[@]}" || { echo "skip: $target/$path"; continue; }
		stress "$target/$path" "$UBLK_DEV"
		ublk_stop
		# mirror: every write reached every leg
		mirrors=0
		[ "${target%-*}" = mirror ] && mirrors=$legs
		for ((i = 1; i < mirrors; i++)); do
			cmp "$WORK/s0" "$WORK/s$i" > "$WORK/cmp.out" 2>&1 ||
				fail "$target/$path: mirror legs 0 and $i differ: $(cat "$WORK/cmp.out")"
		done
		echo "ok: $target/$path: ${T}s, verified I/Os:" \
			"$(ios "$WORK/a.out") of 4K, $(ios "$WORK/b.out") of 60.5K"
		ran=$((ran + 1))
	done
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
