#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A filesystem on every data path: mkfs.ext4 on a ublk loop device over a
# tmpfs file, mount, write files of known content (random data and many
# small files, checksummed), sync, umount, drop the caches: fsck.ext4 -fn
# must be clean and the files must read back with their checksums.
# Page-cache I/O gives the data paths what O_DIRECT tests do not: bios of
# many segments, merged requests, flushes and FUA from the journal.
. "$(dirname "$0")/common.sh"
require_ublk
command -v mkfs.ext4 > /dev/null && command -v fsck.ext4 > /dev/null ||
	skip "no mkfs.ext4/fsck.ext4 (e2fsprogs)"

# 4K blocks: page-sized buffers, multi-page bios.  The debug flavor
# (KASAN, lockdep, kmemleak under TCG) is ~5x slower: there a smaller
# filesystem with mkfs's default for small ones, 1K blocks (sub-page I/O)
SIZE=$((64 << 20)) BIG=$((6 << 20)) SMALL=150 MKFS=(-b 4096)
if [ "${UBLK_ZC_FLAVOR:-}" = debug ]; then
	SIZE=$((16 << 20)) BIG=$((1 << 20)) SMALL=20 MKFS=()
fi
MNT=$WORK/mnt
mkdir -p "$MNT"
MOUNTS+=("$MNT")

# populate DIR: files of known content; their checksums in $WORK/manifest.
# Few execs: one costs seconds on the debug flavor.
populate() {
	local i text
	head -c "$BIG" /dev/urandom > "$1/random.bin" || return 1
	# many small files of odd sizes (tails that end mid-block), written
	# by a builtin
	text=$(head -c $((SMALL * 150)) /dev/urandom | base64 -w0)
	for ((i = 0; i < SMALL; i++)); do
		printf '%s' "${text:i * 50:i * 97 + 1}" > "$1/f$i" || return 1
	done
	(cd "$1" && sha256sum random.bin f*) > "$WORK/manifest"
}

paths=$(ublk_paths) || exit "$KSFT_FAIL"
ran=0
for path in $paths; do
	# sparse: mkfs writes what the filesystem will read
	backing=$WORK/fs-$path
	truncate -s "$SIZE" "$backing" || fail "cannot create $backing"
	ublk_start -t loop -b "$backing" -p "$path" || { echo "skip: $path"; continue; }
	mkfs.ext4 -q -F "${MKFS[@]}" -E lazy_itable_init=0,lazy_journal_init=0 \
		"$UBLK_DEV" > "$WORK/mkfs.out" 2>&1 ||
		{ cat "$WORK/mkfs.out"; fail "$path: mkfs.ext4"; }
	mount -t ext4 "$UBLK_DEV" "$MNT" || fail "$path: mount after mkfs"
	populate "$MNT" || fail "$path: writing files"
	sync || fail "$path: sync"
	umount "$MNT" || fail "$path: umount"
	# drop the device's page cache: what follows reads through the server
	echo 3 > /proc/sys/vm/drop_caches
	fsck.ext4 -fn "$UBLK_DEV" > "$WORK/fsck.out" 2>&1 ||
		{ cat "$WORK/fsck.out"; fail "$path: fsck.ext4 -fn found errors"; }
	mount -t ext4 -o ro "$UBLK_DEV" "$MNT" || fail "$path: mount after fsck"
	(cd "$MNT" && sha256sum --quiet -c "$WORK/manifest") ||
		fail "$path: files read back differ from what was written"
	umount "$MNT" || fail "$path: umount after the check"
	ublk_stop
	mapfile -t sums < "$WORK/manifest"
	echo "ok: $path: ${#sums[@]} files checked"
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no data path available"
exit $KSFT_PASS
