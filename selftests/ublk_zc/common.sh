# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ublk_zc shell tests (sourced).  A test uses
# ublk_start to get a served device in $UBLK_DEV, and ublk_stop (run by
# the EXIT trap) to stop the server and check the device is gone.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ABTOOL=${ABTOOL:-$HERE/../../tools/abtool/abtool}
WORK=${UBLK_ZC_WORK:-$(mktemp -d /tmp/ublk_zc.XXXXXX)}
UBLK_PID=
UBLK_ID=
UBLK_DEV=

fail() { echo "FAIL: $*" >&2; exit $KSFT_FAIL; }
skip() { echo "SKIP: $*" >&2; exit $KSFT_SKIP; }

require_ublk() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -c /dev/ublk-control ] || skip "no /dev/ublk-control (CONFIG_BLK_DEV_UBLK)"
	[ -x "$ABTOOL" ] || skip "abtool not built ($ABTOOL)"
}

# make_backing NAME SIZE: a file on the guest's tmpfs, filled with noise
# so that a read of stale data cannot pass a comparison.
make_backing() {
	local f=$WORK/$1
	head -c "$2" /dev/urandom > "$f" || fail "cannot create $f"
	echo "$f"
}

# ublk_start SERVE_ARGS...: start abtool serve, wait until it is live.
# Returns KSFT_SKIP (after printing why) when the kernel lacks the path.
ublk_start() {
	local fifo=$WORK/ready.$$ status
	mkfifo "$fifo"
	"$ABTOOL" serve --ready-fd 3 "$@" 3> "$fifo" 2> "$WORK/serve.log" &
	UBLK_PID=$!
	read -r -t 30 UBLK_ID < "$fifo"
	rm -f "$fifo"
	if [ -z "$UBLK_ID" ]; then
		wait "$UBLK_PID"
		status=$?
		UBLK_PID=
		cat "$WORK/serve.log"
		[ "$status" = "$KSFT_SKIP" ] && return $KSFT_SKIP
		fail "abtool serve $* did not start (status $status)"
	fi
	UBLK_DEV=/dev/ublkb$UBLK_ID
	local i
	for i in $(seq 100); do [ -b "$UBLK_DEV" ] && return 0; sleep 0.05; done
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

cleanup() {
	local rc=$?
	[ -n "$UBLK_PID" ] && kill -KILL "$UBLK_PID" 2>/dev/null && wait "$UBLK_PID" 2>/dev/null
	[ -z "${UBLK_ZC_WORK:-}" ] && rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
