#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Integrity: every target with backing x every data path the kernel has.
# abtool's checksummed patterns (random mixed read/write, then a full
# verify pass) and fio's crc32c verify with odd sizes and 512-byte-aligned
# buffers (odd bio layouts) must find zero mismatches; mirror legs must
# end identical.
. "$(dirname "$0")/common.sh"
require_ublk

# the debug flavor (KASAN, lockdep, kmemleak under TCG) is ~5x slower
# (there: loop only, smaller; the perf flavor covers every target)
SIZE=$((16 << 20))
TARGETS="loop mirror-2 stripe-2"
if [ "${UBLK_ZC_FLAVOR:-}" = debug ]; then
	SIZE=$((2 << 20))
	TARGETS=loop
fi
# every path abtool knows; those this kernel lacks skip
PATHS=${UBLK_ZC_PATHS:-$("$UBLK_SRV" features --paths | cut -d" " -f1)}
ran=0

fio_verify() { # dev
	fio --name=verify --filename="$1" --direct=1 --ioengine=io_uring \
		--rw=randwrite --bsrange=512-128k --iomem_align=512 \
		--iodepth=16 --size=$((SIZE / 2)) --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=1 --verify_state_save=0 \
		--output-format=terse > "$WORK/fio.out" 2>&1
}

for target in $TARGETS; do
	legs=1
	case $target in *-*) legs=${target#*-} ;; esac
	for path in $PATHS; do
		args=(-t "${target%-*}" -p "$path" --chunk 64k)
		for ((i = 0; i < legs; i++)); do
			args+=(-b "$(make_backing "b$i" "$SIZE")")
		done
		ublk_start "${args[@]}" || { echo "skip: $target/$path"; continue; }
		"$UBLK_SRV" load --rw=write --bs=192k --iodepth=8 --verify \
			"$UBLK_DEV" > "$WORK/load.out" &&
		"$UBLK_SRV" load --verify-only --bs=192k "$UBLK_DEV" >> "$WORK/load.out" ||
			{ cat "$WORK/load.out"; fail "$target/$path: abtool write + verify pass"; }
		"$UBLK_SRV" load --rw=randrw --bs=8k --iodepth=16 --verify \
			--size=$((SIZE * legs)) "$UBLK_DEV" > "$WORK/load.out" ||
			{ cat "$WORK/load.out"; fail "$target/$path: abtool verify (randrw)"; }
		fio_verify "$UBLK_DEV" ||
			{ cat "$WORK/fio.out"; fail "$target/$path: fio crc32c verify"; }
		ublk_stop
		if [ "${target%-*}" = mirror ]; then
			for ((i = 1; i < legs; i++)); do
				cmp -s "$WORK/b0" "$WORK/b$i" ||
					fail "$target/$path: mirror legs 0 and $i differ"
			done
		fi
		echo "ok: $target/$path"
		ran=$((ran + 1))
	done
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
