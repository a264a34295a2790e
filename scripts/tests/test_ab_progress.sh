#!/usr/bin/env bash
# scripts/ab-progress on synthetic boards: plans and progress.log files
# as make ab's guests write them, and the status line they must give:
# cells done of the total over every boot, the cell each running boot
# is on, elapsed and estimated time left, failed boots; then the two
# ways it prints it: one line redrawn with \r on a terminal, plain
# timestamped lines otherwise, and a last line of its own on SIGTERM.
# AB_PROGRESS=FILE tests another copy of scripts/ab-progress.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
prog=${AB_PROGRESS:-$TOP/scripts/ab-progress}
export TZ=UTC
ESC=$'\033'

# plan FILE BOOT PATHS...: abtool run --dry-run's lines for 2 trials x
# 2 cells x PATHS
plan() {
	local f=$1 b=$2 t c p
	shift 2
	for t in 0 1; do
		for c in "null randread 4K qd16" "loop@tmpfs randwrite 64K qd16"; do
			for p in "$@"; do
				echo "boot=$b trial=$t cell=\"$c\" path=$p seed=$((1 + b * 2 + t))"
			done
		done
	done > "$f"
}
# boot BOARD N LABEL VARIANT BOOT PATHS...: boot N of BOARD, its log in
# BOARD.logs/ (not there yet: the boot has not started)
boot() {
	local d=$1/$2
	mkdir -p "$d" "$1.logs"
	echo "$3" > "$d/label"
	plan "$d/plan" "${@:5}"
	ln -s "$1.logs/$4-$5.log" "$d/log"
}
# cells LOG VARIANT N FROM TO: abtool run's lines for cells FROM..TO of N
# (the paths and cells do not matter here, only [k/N])
cells() {
	local k
	for ((k = $4; k <= $5; k++)); do
		printf '[%d/%d] %s/copy null randread 4K qd16      60000 IOPS  p99     280 us\n' \
			"$k" "$3" "$2"
	done >> "$1"
}
# once BOARD NOW [OPTIONS...]: the status at NOW of a run started at 1000
once() { "$prog" --once --since 1000 --now "$2" "${@:3}" "$1"; }

# A board of three boots, 8 cells each: base boot 1/2 has ended (8/8),
# fused boot 1/2 is on its 4th cell, fused boot 2/2 has not started.
B=$T_TMP/b
boot "$B" 000 "base boot 1/2" base 0 copy user_copy
boot "$B" 001 "fused boot 1/2" fused 0 copy fused
boot "$B" 002 "fused boot 2/2" fused 1 fused copy
echo "[03:00:00] vm-run: bzImage accel=tcg clock=icount cpus=1 mem=2048M log=x" > "$B.logs/base-0.log"
cells "$B.logs/base-0.log" base 8 1 8
echo 0 > "$B/000/status"

t_plan 16
: > "$B.logs/fused-0.log"
t_is "a boot started, no cell yet: its first cell is the current one" \
	"$(once "$B" 1005 --plain)" \
	"[00:16:45] measure 8/24 cells (33%), 5s elapsed, ~10s left | fused boot 1/2: [1/8] copy null randread 4K qd16"

cells "$B.logs/fused-0.log" fused 8 1 3
echo "abtool run: icount with 1 vCPUs: a line that is not a cell" >> "$B.logs/fused-0.log"
mid="measure 11/24 cells (45%), 3m12s elapsed, ~3m47s left | fused boot 1/2: [4/8] fused loop@tmpfs randwrite 64K qd16"
t_is "plain: the time, cells done of all boots, elapsed, time left, the current cell" \
	"$(once "$B" 1192 --plain)" "[00:19:52] $mid"
t_is "not a terminal: plain by default" "$(once "$B" 1192)" "[00:19:52] $mid"
t_is "terminal: the line redrawn in place, cut to the width" \
	"$(COLUMNS=60 once "$B" 1192 --tty | od -c | tr -s ' ' | tr -d '\n')" \
	"$(printf '\r%s%s[K' "${mid:0:59}" "$ESC" | od -c | tr -s ' ' | tr -d '\n')"
t_is "terminal: a wide one shows it all" \
	"$(COLUMNS=200 once "$B" 1192 --tty)" $'\r'"${mid}${ESC}[K"

cells "$B.logs/fused-0.log" fused 8 4 8
t_is "a boot past its last cell, still shutting down: finishing" \
	"$(once "$B" 1300 --plain)" \
	"[00:21:40] measure 16/24 cells (66%), 5m00s elapsed, ~2m30s left | fused boot 1/2: finishing"

echo 0 > "$B/001/status"
: > "$B.logs/fused-1.log"
cells "$B.logs/fused-1.log" fused 8 1 2
echo 125 > "$B/002/status"
t_is "a failed boot: counted, its cells not left to do" \
	"$(once "$B" 4725 --plain)" "[01:18:45] measure 18/24 cells (75%), 1h02m elapsed, 1 boot failed"

C=$T_TMP/c
boot "$C" 000 "base boot 1/1" base 0 copy
boot "$C" 001 "fused boot 1/1" fused 0 copy
t_is "nothing started: the total, no estimate" \
	"$(once "$C" 1000 --plain)" "[00:16:40] measure 0/8 cells (0%), 0s elapsed"
: > "$C.logs/base-0.log" && : > "$C.logs/fused-0.log"
t_is "two boots at once: both current cells" \
	"$(once "$C" 1010 --plain)" \
	"[00:16:50] measure 0/8 cells (0%), 10s elapsed | base boot 1/1: [1/4] copy null randread 4K qd16 | fused boot 1/1: [1/4] copy null randread 4K qd16"
echo 1 > "$C/000/status" && echo 1 > "$C/001/status"
t_is "two failed boots: boots" \
	"$(once "$C" 1010 --plain)" "[00:16:50] measure 0/8 cells (0%), 10s elapsed, 2 boots failed"

# (run through t_ok)
# shellcheck disable=SC2317
redrawn() { # FILE: 2 \r or more, one newline, the last byte
	[ "$(tr -cd '\r' < "$1" | wc -c)" -ge 2 ] && [ "$(wc -l < "$1")" = 1 ] &&
		[ "$(tail -c 1 "$1")" = "" ]
}
# shellcheck disable=SC2317
gone() { ! kill -0 "$1" 2> /dev/null; }
# follow BOARD OUT SECONDS ARGS...: ab-progress ARGS BOARD in the
# background for about SECONDS, then stopped as make ab stops it (TERM
# once it is ready); its output in OUT.  $1.more, if there, runs halfway.
follow() {
	local b=$1 out=$2 secs=$3 pid i
	shift 3
	"$prog" "$@" "$b" > "$out" &
	pid=$!
	for ((i = 0; i < secs * 10; i++)); do
		((i == secs * 5)) && [ -x "$b.more" ] && "$b.more"
		sleep 0.1
	done
	while [ ! -e "$b/ready" ] && kill -0 $pid 2> /dev/null; do sleep 0.1; done
	kill $pid
	wait $pid
}
D=$T_TMP/d
boot "$D" 000 "base boot 1/1" base 0 copy
: > "$D.logs/base-0.log"
cells "$D.logs/base-0.log" base 4 1 1
printf '#!/bin/bash\n%s\n' "$(declare -f cells); cells '$D.logs/base-0.log' base 4 2 4; echo 0 > '$D/000/status'" > "$D.more"
chmod +x "$D.more"
follow "$D" "$T_TMP/plain.out" 3 --interval 1
t_ok "plain: a line a second (--interval 1), each with the time" \
	awk 'END { exit !(NR >= 2) } !/^\[[0-9:]+\] measure [0-4]\/4 cells/ { exit 1 }' "$T_TMP/plain.out" ||
	t_diag "$(cat "$T_TMP/plain.out")"
t_is "plain: the last line, on TERM, is the final state" \
	"$(tail -n 1 "$T_TMP/plain.out" | sed 's/^\[[0-9:]*\] //; s/, [0-9]s elapsed//')" "measure 4/4 cells (100%)"

rm -f "$D/000/status" "$D/ready" && : > "$D.logs/base-0.log" && cells "$D.logs/base-0.log" base 4 1 1
follow "$D" "$T_TMP/tty.out" 3 --tty
t_ok "terminal: redrawn in place, one newline, at the end" redrawn "$T_TMP/tty.out" ||
	t_diag "\\r and ESC[K shown as ^M and ^[[K:" "$(cat -v "$T_TMP/tty.out")"
t_is "terminal: the final line, on TERM, shows the final state" \
	"$(tr '\r' '\n' < "$T_TMP/tty.out" | tail -n 1 | sed "s/, [0-9]s elapsed//; s/$ESC\[K//")" "measure 4/4 cells (100%)"

if command -v script > /dev/null; then
	rm -f "$D/ready"
	script -qec "$prog --once $D" /dev/null > "$T_TMP/pty.out" < /dev/null
	t_ok "on a terminal by default (script's pty): the redrawn line" grep -q "^"$'\r'"measure 4/4 cells" "$T_TMP/pty.out"
else
	t_skip "on a terminal by default (script's pty): the redrawn line" "no script(1)"
fi

# the parent ends by itself: a child killed before its exec would run
# this shell's EXIT trap (bash), removing $T_TMP under the follower
sleep 1 &
parent=$!
"$prog" --tty --pid $parent "$D" > /dev/null &
pid=$!
wait $parent
# it looks once a second; a loaded machine may take longer
for ((i = 0; i < 300; i++)); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
t_ok "--pid: it ends with the make ab that started it" gone $pid
kill $pid 2> /dev/null
t_done
