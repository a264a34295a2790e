#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# null target: every data path the kernel has moves each request's bytes
# (reads from a memfd of zeros, writes to /dev/null), so reading back what was
# written gives zeroes, whatever the path, and nothing is stored.
. "$(dirname "$0")/common.sh"
require_ublk

SIZE=$((8 << 20))
paths=$(ublk_paths) || exit $KSFT_FAIL
ran=0
head -c $((1 << 20)) /dev/urandom > "$WORK/data"
head -c $((1 << 20)) /dev/zero > "$WORK/zero"
for path in $paths; do
	ublk_start -t null --size "$SIZE" -p "$path" || continue
	for bs in 4k 64k 512k; do
		dd if="$WORK/data" of="$UBLK_DEV" bs=$bs oflag=direct status=none ||
			fail "$path: $bs writes to $UBLK_DEV failed"
		dd if="$UBLK_DEV" of="$WORK/back" bs=$bs count=$(( (1 << 20) / ${bs%k} / 1024 )) \
			iflag=direct status=none ||
			fail "$path: $bs reads from $UBLK_DEV failed"
		cmp -s "$WORK/zero" "$WORK/back" ||
			fail "$path: $bs reads of null are not zeroes"
	done
	ublk_stop
	echo "ok: null/$path"
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
