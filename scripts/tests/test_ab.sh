#!/usr/bin/env bash
# scripts/ab on a stub tree: the real scripts/ab and lib.sh with stub
# deps/kernel-source/kernel-headers/kernel-build, a stub vm-run that runs
# the command on the host, and a stub abtool whose `run` writes trial
# records (and can fail a boot, lose records or skip a data path, per
# STUB_* below).  A failed boot, a failed cell or a partial result must
# fail `make ab` with the variant named, and nothing be compared; each
# boot's trials use their own seeds; the output says how n splits; the
# progress line (scripts/ab-progress) counts every boot's cells, and
# the files make ab writes are the same as without it.
# Last, the real abtool (if built): `run --dry-run` shows seed + trial.
# AB_SCRIPTS=DIR tests another copy of scripts/ab, ab-progress and lib.sh.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
src=${AB_SCRIPTS:-$TOP/scripts}
F=$T_TMP/top

mkdir -p "$F/scripts" "$F/tools/abtool" "$F/selftests/ublk_zc"
cp "$src/ab" "$src/ab-progress" "$src/lib.sh" "$F/scripts/"
# the registry: the stub's own, so that these cases follow its lines;
# splice-rsrc and fused have a patch, bpf and regbuf none yet, base and
# upstream are stock (no patch directory)
printf '%s\t%s\t%s\t%s\n' base 6.12 check "copy user_copy" \
	splice-rsrc 6.12 check "copy user_copy splice autolend" \
	fused 6.12 default "copy user_copy fused" \
	bpf 6.12 default "copy user_copy bpf" \
	regbuf 6.12 extra "copy user_copy regbuf autobuf" \
	upstream 7.3 check "copy user_copy regbuf autobuf" \
	splice-rsrc-7.3 7.3 extra "copy user_copy regbuf autobuf splice autolend" \
	> "$F/selftests/ublk_zc/variants"
series_dirs() {
	rm -rf "$F/patches"
	mkdir -p "$F"/patches/{splice-rsrc,fused,bpf,regbuf,splice-rsrc-7.3}
	for v in splice-rsrc fused "$@"; do : > "$F/patches/$v/0001-x.patch"; done
}
series_dirs
for s in deps kernel-build; do
	printf '#!/bin/sh\nexit 0\n' > "$F/scripts/$s"
done
# kernel-headers: the headers' stamp, and a kernel tree whose selftests
# Makefile builds nothing (the kublk stage of upstream)
cat > "$F/scripts/kernel-headers" <<'STUB'
#!/bin/sh
mkdir -p "$BUILD/headers/$1" "$BUILD/trees/$1/tools/testing/selftests/ublk" &&
touch "$BUILD/headers/$1/.stamp" &&
printf 'all clean:\n\t@true\n' > "$BUILD/trees/$1/tools/testing/selftests/Makefile"
STUB
mkdir -p "$F/selftests/upstream" && : > "$F/selftests/upstream/liburing_compat.h"
printf '#!/bin/sh\necho 6.12.118-1~deb12u1\n' > "$F/scripts/kernel-source"
printf 'all:\n\t@true\n' > "$F/tools/abtool/Makefile"
# vm-run: STUB_NOBOOT="VARIANT:BOOT ..." boots fail as a guest that gave
# no status would (125); else the command runs here
cat > "$F/scripts/vm-run" <<'STUB'
#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--cpus) echo "vm-run cpus=$2" >> "$STUB_LOG"; shift ;;
	--clock|--timeout|--dir|--append|--mem|--accel) shift ;;
	esac
	shift
done
v= b=
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in --variant) v=${args[i + 1]} ;; --boot) b=${args[i + 1]} ;; esac
done
case " ${STUB_NOBOOT:-} " in *" $v:$b "*) echo "vm-run: stub: no status" >&2; exit 125 ;; esac
export VMRUN_CLOCK=icount VMRUN_ACCEL=tcg
"$@"
STUB
# abtool run: two cells x --trials x --paths, one record each and one
# "[k/N] variant/path cell" line on stderr each, except:
# STUB_FAIL="V:B": only trial 0, then exit 1 (a cell failed);
# STUB_PARTIAL="V:B": the last record missing, exit 0;
# STUB_LACKS="V:PATH": PATH skipped as unsupported, exit 0;
# --dry-run lists the cells in that order, as abtool run does
cat > "$F/tools/abtool/abtool" <<'STUB'
#!/bin/bash
cmd=$1
shift
case $cmd in
run) ;;
compare) echo "compare $*" >> "$STUB_LOG"; echo "stub compare"; exit 0 ;;
*) exit 2 ;;
esac
o= v= b=0 seed=1 trials=3 paths=copy,user_copy,splice,autolend,fused dry=0
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) dry=1 ;;
	-o) o=$2; shift ;;
	--variant) v=$2; shift ;;
	--boot) b=$2; shift ;;
	--seed) seed=$2; shift ;;
	--trials) trials=$2; shift ;;
	--paths) paths=$2; shift ;;
	--kublk) echo "kublk variant=$v $2" >> "$STUB_LOG"; shift ;;
	--list-paths) printf '%s\n' copy user_copy splice autolend fused; exit 0 ;;
	esac
	shift
done
if ((dry)); then
	for ((t = 0; t < trials; t++)); do
		for bs in 4K 64K; do
			for p in ${paths//,/ }; do
				echo "boot=$b trial=$t cell=\"null randread $bs qd16\" path=$p seed=$((seed + t))"
			done
		done
	done
	exit 0
fi
echo "run variant=$v boot=$b seed=$seed paths=$paths" >> "$STUB_LOG"
fail=0 partial=0
case " ${STUB_FAIL:-} " in *" $v:$b "*) fail=1 ;; esac
case " ${STUB_PARTIAL:-} " in *" $v:$b "*) partial=1 ;; esac
recs=() step=0 paths=${paths//,/ }
steps=$((trials * 2 * $(wc -w <<< "$paths")))
for ((t = 0; t < trials; t++)); do
	((fail && t > 0)) && break
	for bs in 4096 65536; do
		for p in $paths; do
			step=$((step + 1))
			case " ${STUB_LACKS:-} " in *" $v:$p "*) continue ;; esac
			echo "[$step/$steps] $v/$p null randread $((bs / 1024))K qd16   1000 IOPS" >&2
			recs+=("$(printf '{"schema":"abtool-trial-1","variant":"%s","kernel":"6.12.118","flavor":"perf","path":"%s","clock":"icount","accel":"tcg","host":"h","date":"2026-12-04T20:00:00Z","boot":%d,"trial":%d,"cell":{"target":"null","legs":1,"rw":"randread","bs":%d,"iodepth":16,"jobs":1},"metrics":{"iops":1000.0}}' "$v" "$p" "$b" "$t" "$bs")")
		done
	done
done
((partial)) && unset 'recs[-1]'
printf '%s\n' "${recs[@]}" >> "$o"
exit $fail
STUB
chmod +x "$F"/scripts/* "$F/tools/abtool/abtool"

# ab CASE ARGS...: run the stub tree's scripts/ab (env STUB_* as set);
# its output in $T_TMP/CASE.out, the stub's log in $T_TMP/CASE.log;
# its scratch files in $T_TMP/tmp
ab() {
	local c=$1
	shift
	rm -rf "$F/build" "$T_TMP/tmp"
	mkdir "$T_TMP/tmp"
	STUB_LOG=$T_TMP/$c.log BUILD=$F/build TMPDIR=$T_TMP/tmp \
		"$F/scripts/ab" --jobs 2 "$@" > "$T_TMP/$c.out" 2>&1
}
V=(--variants "base,splice-rsrc,fused")

t_plan 30
ab ok "${V[@]}"
t_is "a complete run passes" "$?" 0 || t_diag "$(tail -n 5 "$T_TMP/ok.out")"
t_ok "it says how n splits into boots x trials" \
	grep -q "n = 2 boot(s) x 4 trial(s) = 8 per cell and path" "$T_TMP/ok.out"
t_is "boot 0 of every kernel: seed 1, boot 1: seed 5" \
	"$(sed -n 's/^run variant=\([^ ]*\) boot=\([0-9]*\) seed=\([0-9]*\) .*/\1 \2 \3/p' "$T_TMP/ok.log" 2> /dev/null | sort | tr '\n' ,)" \
	"base 0 1,base 1 5,fused 0 1,fused 1 5,splice-rsrc 0 1,splice-rsrc 1 5,"
# paths_of CASE: "variant paths" of each kernel's boot 0, sorted
paths_of() {
	sed -n 's/^run variant=\([^ ]*\) boot=0 .*paths=\(.*\)/\1 \2/p' "$T_TMP/$1.log" 2> /dev/null |
		sort | tr '\n' ' '
}
t_is "each kernel measures its own paths; copy on base, user_copy on base and splice-rsrc" \
	"$(paths_of ok)" "base copy,user_copy,kernel fused fused splice-rsrc user_copy,splice,autolend "
t_is "every trial reaches the comparison" \
	"$(cat "$F"/build/results/*/trials-*.jsonl 2> /dev/null | wc -l)" $((2 * 4 * 2 * (3 + 1 + 3)))

# shellcheck disable=SC2317 # run through t_ok
no_cr() { ! grep -q $'\r' "$1"; }
# the progress line: 2 boots x 4 trials x 2 cells x (3 + 1 + 3) paths
t_ok "the progress line ends with every boot's cells done" \
	grep -Eq '^\[[0-9:]{8}\] measure 112/112 cells \(100%\), [0-9hms]+ elapsed$' "$T_TMP/ok.out" ||
	t_diag "$(grep measure "$T_TMP/ok.out")"
t_ok "not on a terminal: plain lines, no carriage return" no_cr "$T_TMP/ok.out"
t_is "the results directory holds what it held before the progress line" \
	"$(cd "$F"/build/results/*/ 2> /dev/null && find . -type f | sort | tr '\n' ' ')" \
	"$(printf './%s ' summary.txt trials-base.jsonl trials-fused.jsonl trials-splice-rsrc.jsonl \
		vm-{base,fused,splice-rsrc}-{0,1}/{progress.log,trials.jsonl})"
t_is "a boot's progress.log holds its guest's lines only" \
	"$(tr '\n' , < "$F"/build/results/*/vm-fused-1/progress.log 2> /dev/null)" \
	"$(for k in 1 2 3 4 5 6 7 8; do
		c=4K; ((k % 2)) || c=64K
		printf '[%d/8] fused/fused null randread %s qd16   1000 IOPS,' "$k" "$c"; done)"
t_is "the progress board is removed" "$(ls -A "$T_TMP/tmp")" ""

ab allp "${V[@]}" --all-paths
t_is "--all-paths: copy and user_copy on every kernel too" \
	"$(paths_of allp)" "base copy,user_copy,kernel fused copy,user_copy,fused splice-rsrc copy,user_copy,splice,autolend "
series_dirs regbuf
ab dflt
t_is "by default every variant with patches, regbuf (VARIANTS_EXTRA) too; each stock kernel its own reference rows" \
	"$(paths_of dflt)" "base copy,user_copy,kernel fused fused regbuf regbuf,autobuf splice-rsrc user_copy,splice,autolend upstream copy,user_copy,regbuf,autobuf,kernel,kublk-z,kublk-auto_zc,kublk-batch "
series_dirs

# a 7.3 series: upstream's paths and kublk, from its own tree, beside its own
series_dirs splice-rsrc-7.3
ab s73 --variants upstream,splice-rsrc-7.3
t_is "a 7.3 series measures its paths, upstream's and kublk's rows" \
	"$(paths_of s73)" "splice-rsrc-7.3 regbuf,autobuf,splice,autolend,kublk-z,kublk-auto_zc,kublk-batch upstream copy,user_copy,regbuf,autobuf,kernel,kublk-z,kublk-auto_zc,kublk-batch "
t_is "each 7.3 kernel runs the kublk of its own tree" \
	"$(sed -n 's|^kublk variant=\([^ ]*\) .*/trees/\([^/]*\)/tools/testing/selftests/ublk/kublk$|\1:\2|p' "$T_TMP/s73.log" 2> /dev/null | sort -u | tr '\n' ,)" \
	"splice-rsrc-7.3:splice-rsrc-7.3,upstream:upstream,"
series_dirs

ab seeds --variants base,fused --boots 3 --trials 2 --seed 100
t_is "--seed S: boot b of every kernel gets S + b*trials" \
	"$(sed -n 's/^run variant=\([^ ]*\) boot=\([0-9]*\) seed=\([0-9]*\) .*/\1 \2 \3/p' "$T_TMP/seeds.log" 2> /dev/null | sort | tr '\n' ,)" \
	"base 0 100,base 1 102,base 2 104,fused 0 100,fused 1 102,fused 2 104,"

# vCPUs: icount boots 1 (a task's task-clock is its own only there), wall 2
vcpus() { sed -n 's/^vm-run cpus=//p' "$T_TMP/$1.log" 2> /dev/null | sort -u | tr '\n' ,; }
t_is "icount guests boot 1 vCPU by default" "$(vcpus ok)" "1,"
ab wall --variants base --boots 1 --clock wall
t_is "wall-clock guests boot 2 vCPUs by default" "$(vcpus wall)" "2,"
ab cpus3 --variants base --boots 1 --cpus 3
t_is "--cpus N boots N vCPUs" "$(vcpus cpus3)" "3,"

# fails_naming RC DESC CASE WHAT: ab failed, its ERROR message names
# WHAT, and nothing was compared
fails_naming() {
	local rc=$1
	# shellcheck disable=SC2016 # the inner shell expands them
	t_ok "$2: make ab fails naming it" \
		bash -c '[ "$1" != 0 ] && sed -n "/^ERROR/,\$p" "$2" | grep -qF -- "$3"' _ "$rc" "$T_TMP/$3.out" "$4" ||
		t_diag "exit $rc" "$(tail -n 4 "$T_TMP/$3.out")"
	# shellcheck disable=SC2016
	t_ok "$2: nothing compared" bash -c '! grep -q "^compare" "$1"' _ "$T_TMP/$3.log"
}
STUB_FAIL="splice-rsrc:1" ab cellfail "${V[@]}"
fails_naming $? "a failed cell (abtool run exits 1)" cellfail "splice-rsrc boot 2/2"
STUB_NOBOOT="fused:0" ab noboot "${V[@]}"
fails_naming $? "a failed boot (vm-run 125)" noboot "fused boot 1/2 (status 125)"
t_is "a failed boot: the last progress line counts it, before the error" \
	"$(sed -n -e 's/^\[[0-9:]*\] \(measure [0-9]*\/112 cells.*failed\)$/\1/p' \
		-e 's/^\(ERROR\).*/\1/p' "$T_TMP/noboot.out" | tail -n 2 | sed 's/, [0-9hms]* elapsed//' | tr '\n' ,)" \
	"measure 104/112 cells (92%), 1 boot failed,ERROR,"
STUB_PARTIAL="base:1" ab partial "${V[@]}"
fails_naming $? "a lost trial record, guest exit 0" partial "base boot 2/2: path"
STUB_LACKS="splice-rsrc:splice" ab lacks "${V[@]}"
fails_naming $? "the series path skipped, guest exit 0" lacks "splice-rsrc boot 1/2: no trials of data path splice"
STUB_LACKS="base:kernel" ab nokernel "${V[@]}"
fails_naming $? "the in-kernel rows skipped (no md?), guest exit 0" nokernel "base boot 1/2: no trials of data path kernel"

abtool=$TOP/tools/abtool/abtool
if [ -x "$abtool" ]; then
	got=$("$abtool" run --dry-run --quick --trials 3 --seed 10 --paths copy,splice 2>&1 |
		sed -n 's/.*trial=\([0-9]*\) cell="null randread 4K qd16" path=\([a-z_]*\) seed=\([0-9]*\)/\1 \2 \3/p' |
		tr '\n' ,)
	t_is "abtool run: trial t uses --seed + t on every path (ABBA order)" "$got" \
		"0 copy 10,0 splice 10,1 splice 11,1 copy 11,2 copy 12,2 splice 12,"
else
	t_skip "abtool run: trial t uses --seed + t on every path" "abtool not built"
fi
t_done
