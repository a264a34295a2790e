#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke: serve a loop device over a tmpfs file with each data path the
# kernel has, write random data with O_DIRECT, read it back, compare it
# with what was written and with the backing file, stop, check it is gone.
. "$(dirname "$0")/common.sh"
require_ublk

SIZE=$((16 << 20))
ran=0
for path in copy user_copy; do
	backing=$(make_backing "backing-$path" "$SIZE")
	head -c $((4 << 20)) /dev/urandom > "$WORK/data"
	ublk_start -t loop -b "$backing" -p "$path" || continue
	dd if="$WORK/data" of="$UBLK_DEV" bs=64k seek=3 oflag=direct status=none ||
		fail "$path: write to $UBLK_DEV failed"
	dd if="$UBLK_DEV" of="$WORK/back" bs=64k skip=3 count=64 iflag=direct status=none ||
		fail "$path: read from $UBLK_DEV failed"
	cmp "$WORK/data" "$WORK/back" || fail "$path: data read back differs"
	cmp -i $((3 * 65536)):0 -n $((4 << 20)) "$backing" "$WORK/data" ||
		fail "$path: backing file does not hold the data"
	ublk_stop
	echo "ok: $path"
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
