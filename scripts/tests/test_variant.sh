#!/usr/bin/env bash
# selftests/ublk_zc knows which kernel it runs on (UBLK_ZC_VARIANT, set
# by lib.sh's suite_test): what that variant must have and lacks fails
# (exit 1) instead of skipping (exit 4); without the variable (by hand)
# it still skips.  Host-side, in a private mount namespace whose /dev is
# a tmpfs: "ublk" is absent, or a /dev/ublk-control that is /dev/null
# (every ublk command fails: feature detection fails, nothing real is
# touched); abtool is a stub whose `features --paths` says what
# STUB_PATHS lists and whose `serve` reports "path unsupported" (exit 4).
# SELFTESTS=DIR tests another copy of selftests/ublk_zc (built).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
ST=${SELFTESTS:-$TOP/selftests/ublk_zc}
N=66

t_plan $N
if [ "$(id -u)" != 0 ] || ! unshare -m true 2> /dev/null; then
	for ((i = 0; i < N; i++)); do t_skip "variant case $i" "needs root and unshare -m"; done
	t_done
fi

# every data path the registry names, in its order
ALL_PATHS=$(awk '!/^#/ && NF >= 4 { for (i = 4; i <= NF; i++) if (!seen[$i]++) printf "%s ", $i }' \
	"$ST/variants")
export ALL_PATHS
cat > "$T_TMP/abtool" <<'STUB'
#!/bin/bash
case $1 in
features)
	for p in $ALL_PATHS; do
		if [[ " ${STUB_PATHS:-} " == *" $p "* ]]; then
			echo "$p yes"
		else
			echo "$p no: stub"
		fi
	done ;;
serve) echo "abtool serve: stub: data path not supported" >&2; exit 4 ;;
*) exit 2 ;;
esac
STUB
chmod +x "$T_TMP/abtool"

# in_ns UBLK CMD...: run CMD in a mount namespace whose /dev has null,
# zero, urandom, fd links and, when UBLK=1, a fake ublk-control
in_ns() {
	local ublk=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m bash -c '
		d=$1 ublk=$2; shift 2
		mkdir -p "$d" && mount -t tmpfs none "$d" || exit 99
		mknod "$d/null" c 1 3 && mknod "$d/zero" c 1 5 &&
		mknod "$d/urandom" c 1 9 || exit 99
		[ "$ublk" = 1 ] && { mknod "$d/ublk-control" c 1 3 || exit 99; }
		ln -s /proc/self/fd "$d/fd"
		for i in 0 1 2; do ln -s "/proc/self/fd/$i" "$d/$(echo stdin stdout stderr | cut -d" " -f$((i + 1)))"; done
		mount --bind "$d" /dev || exit 99
		"$@"' in_ns "$T_TMP/dev" "$ublk" "$@"
}

# rc_of UBLK VARIANT CMD...: CMD's exit status (its output in $T_TMP/out)
rc_of() {
	local ublk=$1 v=$2
	shift 2
	in_ns "$ublk" env ${v:+UBLK_ZC_VARIANT=$v} UBLK_SRV="$T_TMP/abtool" \
		STUB_PATHS="${STUB_PATHS:-}" UBLK_ZC_WORK= "$@" > "$T_TMP/out" 2>&1
	echo $?
}

# C programs: feature detection fails; skip or fail per variant
# (expected exit status for: no variant, base, splice-rsrc, fused)
c_case() { # PROG UBLK WANT...
	local prog=$1 ublk=$2 v i=0 got want
	shift 2
	if [ ! -x "$ST/$prog" ]; then
		for v in - base splice-rsrc fused; do t_skip "$prog ublk=$ublk $v" "not built"; done
		return
	fi
	for v in "" base splice-rsrc fused; do
		want=${*:$((++i)):1}
		got=$(cd "$ST" && rc_of "$ublk" "$v" "./$prog")
		t_is "$prog $([ "$ublk" = 1 ] && echo "(ublk, no series)" || echo "(no ublk)") UBLK_ZC_VARIANT=${v:-unset}" "$got" "$want" ||
			t_diag "$(tail -n 3 "$T_TMP/out")"
	done
}
c_case splice_uapi 0 4 1 1 1
c_case fused_uapi 0 4 1 1 1
c_case zc_fuzz 0 4 1 1 1
c_case regbuf_uapi 0 4 1 1 1
c_case splice_autolend 0 4 1 1 1
c_case splice_uapi 1 4 4 1 4
c_case fused_uapi 1 4 4 4 1
c_case zc_fuzz 1 4 4 1 1
c_case regbuf_uapi 1 4 4 4 4
c_case splice_autolend 1 4 4 1 4
# zc_fuzz fuzzes the bpf series too: a bpf variant without it fails
for u in 0 1; do
	if [ ! -x "$ST/zc_fuzz" ]; then
		t_skip "zc_fuzz ublk=$u bpf" "not built"
		continue
	fi
	got=$(cd "$ST" && rc_of "$u" bpf ./zc_fuzz)
	t_is "zc_fuzz $([ "$u" = 1 ] && echo "(ublk, no series)" || echo "(no ublk)") UBLK_ZC_VARIANT=bpf" "$got" 1 ||
		t_diag "$(tail -n 3 "$T_TMP/out")"
done

# shell tests: no data path at all skips by hand, fails on any variant
for t in test_smoke.sh test_verify.sh test_fs.sh test_faults.sh test_stress.sh; do
	t_is "$t, no data path, no variant: skip" "$(cd "$ST" && STUB_PATHS='' rc_of 1 "" bash "./$t")" 4
	got=$(cd "$ST" && STUB_PATHS='' rc_of 1 base bash "./$t")
	t_is "$t, no data path, UBLK_ZC_VARIANT=base: fail" "$got" 1 ||
		t_diag "$(tail -n 3 "$T_TMP/out")"
done
got=$(cd "$ST" && STUB_PATHS="copy user_copy" rc_of 1 base bash ./test_fs.sh)
t_is "test_fs.sh: server cannot serve copy on base: fail" "$got" 1
t_ok "... naming the path" grep -q "lacks data path copy, which UBLK_ZC_VARIANT=base must have" "$T_TMP/out"
got=$(cd "$ST" && STUB_PATHS="copy user_copy" rc_of 1 splice-rsrc bash ./test_stress.sh)
t_is "test_stress.sh: splice-rsrc kernel without splice: fail" "$got" 1
t_ok "... naming the path" grep -q "must have data path(s) splice" "$T_TMP/out"
got=$(cd "$ST" && STUB_PATHS="copy user_copy splice" rc_of 1 base bash ./test_faults.sh)
t_is "test_faults.sh: splice on a base kernel: fail" "$got" 1
t_ok "... naming the path" grep -q "data path(s) splice, which UBLK_ZC_VARIANT=base must not have" "$T_TMP/out"
got=$(cd "$ST" && STUB_PATHS="copy user_copy regbuf" rc_of 1 regbuf bash ./test_stress.sh)
t_is "test_stress.sh: regbuf kernel without autobuf: fail" "$got" 1
t_ok "... naming the path" grep -q "must have data path(s) autobuf" "$T_TMP/out"
got=$(cd "$ST" && STUB_PATHS="copy user_copy fused autobuf" rc_of 1 fused bash ./test_faults.sh)
t_is "test_faults.sh: autobuf on a fused kernel: fail" "$got" 1
t_ok "... naming the path" grep -q "data path(s) autobuf, which UBLK_ZC_VARIANT=fused must not have" "$T_TMP/out"
# test_fuzz_replay.sh takes zc_fuzz's verdict, which weighed the variant
t_is "test_fuzz_replay.sh: zc_fuzz skips on base: skip" \
	"$(cd "$ST" && rc_of 1 base bash ./test_fuzz_replay.sh)" 4
t_is "test_fuzz_replay.sh: zc_fuzz fails on a splice-rsrc kernel without it: fail" \
	"$(cd "$ST" && rc_of 1 splice-rsrc bash ./test_fuzz_replay.sh)" 1
t_is "test_fuzz_replay.sh: zc_fuzz fails on a bpf kernel without it: fail" \
	"$(cd "$ST" && rc_of 1 bpf bash ./test_fuzz_replay.sh)" 1
t_is "test_smoke.sh: unknown variant fails" "$(cd "$ST" && rc_of 1 nosuch bash ./test_smoke.sh)" 1
t_done
