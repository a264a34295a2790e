#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# zc_fuzz replays: the same seed gives the same ops.  Two runs of each
# FETCH mode (-m split, -m same) with one seed must print the same -vv
# log (every op, its SQE and its result), apart from the lines that
# report time and how long loans took to come back.  zc_fuzz's own exit
# status counts too (it skips, or fails, as the variant says, so its
# skip is this test's skip on any variant).
. "$(dirname "$0")/common.sh"

FUZZ=$HERE/zc_fuzz
OPS=${UBLK_ZC_REPLAY_OPS:-300}
SEED=${UBLK_ZC_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
[ -x "$FUZZ" ] || skip "zc_fuzz not built ($FUZZ)"

# what may differ between two runs of one seed: wall time, retries, and
# the tag numbers of the requests (below the queue depth, 8): the block
# layer's choice (the fuzzer aims at requests by their place on the
# device; a fused command carries the tag in the ublksrv_io_cmd at addr3,
# bits 16-31; the bpf series' log names them tag=N too); the user
# addresses are fixed by running without ASLR.  On the bpf series -m does
# not apply: both modes run the same fuzzer
filter() {
	grep -v -e '^# seed [0-9]*: [0-9]* ops' \
		-e 'removed/dropped loans probed' \
		-e '^# reproduce:' -e '^# stray request' "$1" |
	perl -pe 'sub msk { my $v = hex($_[0]); my $t = (($v - 0x80000000) >> 25) & 0xffff;
		      return "off=0x$_[0]" if $v < 0x80000000 || $t >= 8;
		      sprintf("off=0x%x+tag", $v - ($t << 25)) }
		  sub msk3 { my $v = hex($_[0]); my $t = ($v >> 16) & 0xffff;
		       return "addr3=0x$_[0]" if $t >= 8 || ($v & 0xffff);
		       sprintf("addr3=0x%x+tag", $v - ($t << 16)) }
		  s/off=0x([0-9a-f]+)/msk($1)/ge;
		  s/addr3=0x([0-9a-f]+)/msk3($1)/ge;
		  s/tag=(\d+)/"tag=" . ($1 < 8 ? "T" : $1)/ge'
}
norand=
setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"

echo "# seed $SEED, $OPS ops per run"
for mode in split same; do
	for run in 1 2; do
		UBLK_ZC_FUZZ_SEED=$SEED $norand "$FUZZ" -vv -n "$OPS" -m $mode \
			> "$WORK/replay-$mode-$run.log" 2>&1
		rc=$?
		[ $rc = $KSFT_SKIP ] && skip_checked "zc_fuzz skipped: $(grep -m1 -i skip "$WORK/replay-$mode-$run.log")"
		if [ $rc != 0 ]; then
			grep '^# FAIL' "$WORK/replay-$mode-$run.log" | head -5 >&2
			fail "zc_fuzz -m $mode -s $SEED run $run failed ($rc)"
		fi
	done
	if ! diff <(filter "$WORK/replay-$mode-1.log") \
		  <(filter "$WORK/replay-$mode-2.log") > "$WORK/replay-$mode.diff"; then
		head -20 "$WORK/replay-$mode.diff" >&2
		fail "-m $mode: two runs of seed $SEED differ ($WORK/replay-$mode.diff)"
	fi
	echo "ok: -m $mode replays ($(grep -c '^#   op #' "$WORK/replay-$mode-1.log") ops logged)"
done
rm -f "$WORK"/replay-*
[ -n "$UBLK_ZC_WORK" ] || rmdir "$WORK" 2>/dev/null
exit $KSFT_PASS
