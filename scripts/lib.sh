# shellcheck shell=bash
# Common helpers for the project's scripts: paths, logging, failing with
# the variant and the step named, and the list of variants.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The variants, their kernel bases and data paths: one line each in
# selftests/ublk_zc/variants (the suite reads the same file).
# VARIANTS_ALL: the default matrices (make check, make ab, make stress,
# make lint, make kernels).  VARIANTS_EXTRA: variants the scripts know and
# build, test and measure when named (CHECK_MATRIX="regbuf/debug",
# ab --variants base,regbuf, STRESS_VARIANTS=regbuf, scripts/lint regbuf,
# make kernels VARIANTS=regbuf) or with CHECK_MATRIX=all, but that the
# default runs leave out: make check has a 60-minute budget (docs/testing.md, "Budget").
VARIANTS_FILE=$TOP/selftests/ublk_zc/variants
# variants_read RE: the variants whose matrix column matches RE, in file order
variants_read() {
	awk -v m="^$1\$" '!/^#/ && NF >= 4 && $3 ~ m { print $1 }' "$VARIANTS_FILE"
}
mapfile -t VARIANTS_ALL < <(variants_read '(check|default)')
mapfile -t VARIANTS_EXTRA < <(variants_read extra)
# CHECK_VARIANTS: make check's default kernels (matrix "check")
mapfile -t CHECK_VARIANTS < <(variants_read check)
# the kernel bases (patches/BASE-<base>)
BASES_ALL=(6.12 7.3)
FLAVORS_ALL=(perf debug)

# The step currently running, printed on failure.
STEP=${STEP:-}

# LOG_CLEAR is printed before each message: scripts/ab sets it to
# "\r\e[K" while scripts/ab-progress keeps a status line on the terminal,
# so that a message replaces the line instead of running on from it.
log() { printf '%s[%s] %s\n' "${LOG_CLEAR:-}" "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '%s\n*** WARNING: %s\n\n' "${LOG_CLEAR:-}" "$*" >&2; }
die() {
	printf '%sERROR%s: %s\n' "${LOG_CLEAR:-}" "${STEP:+ [$STEP]}" "$*" >&2
	exit 1
}

# Series files of a variant, cover letter excluded, in apply order.  A
# stock variant (base, upstream: the kernel as its base ships it) has no
# patches/VARIANT directory.
series_patches() {
	local dir=$TOP/patches/$1
	[ -d "$dir" ] || return 0
	find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

# in_list WORD LIST...: whether WORD is one of LIST
in_list() {
	local w=$1 x
	shift
	for x; do [ "$x" = "$w" ] && return 0; done
	return 1
}

valid_variant() {
	in_list "$1" "${VARIANTS_ALL[@]}" "${VARIANTS_EXTRA[@]}" ||
		die "unknown variant '$1' (known: ${VARIANTS_ALL[*]} ${VARIANTS_EXTRA[*]})"
}

# variant_is_stock V: V is its base's kernel as shipped (base: Debian's
# 6.12, upstream: 7.3), with no patches/V directory
variant_is_stock() { [ ! -d "$TOP/patches/$1" ]; }
# variant_has_patches V: a stock variant always; another variant once its
# series holds a patch (before that, builds, tests and measurements skip it)
variant_has_patches() {
	variant_is_stock "$1" || [ -n "$(series_patches "$1")" ]
}

# variant_field V N: field N of variant V's line in the registry
variant_field() {
	local f
	f=$(awk -v v="$1" -v n="$2" '!/^#/ && $1 == v {
		s = $n; for (i = n + 1; n == 4 && i <= NF; i++) s = s " " $i
		print s; exit }' "$VARIANTS_FILE")
	[ -n "$f" ] || die "variant '$1' is not in $VARIANTS_FILE"
	echo "$f"
}
# variant_paths V: the data paths kernel variant V must have
variant_paths() { variant_field "$1" 4; }
# variant_base V: the kernel base V's series applies to (6.12, 7.3)
variant_base() { variant_field "$1" 2; }

valid_base() {
	in_list "$1" "${BASES_ALL[@]}" ||
		die "unknown kernel base '$1' (known: ${BASES_ALL[*]})"
}
# pristine_dir BASE: the git tree of BASE's unpatched source, of which
# every variant tree of that base is a worktree
pristine_dir() {
	case $1 in
	6.12) echo "$BUILD/trees/pristine" ;;
	*) echo "$BUILD/trees/pristine-$1" ;;
	esac
}

# check_default_matrix DEBUG...: make check's kernels, on one line:
# base/perf, then every other variant of CHECK_VARIANTS on its debug
# flavor if it is one of DEBUG, else on its perf flavor
check_default_matrix() {
	local v m=base/perf
	for v in "${CHECK_VARIANTS[@]}"; do
		[ "$v" = base ] && continue
		if in_list "$v" "$@"; then m+=" $v/debug"; else m+=" $v/perf"; fi
	done
	echo "$m"
}

valid_flavor() {
	in_list "$1" "${FLAVORS_ALL[@]}" ||
		die "unknown flavor '$1' (known: ${FLAVORS_ALL[*]})"
}

tree_dir() { echo "$BUILD/trees/$1"; }
# Objects live in a direct subdirectory of the source tree so that the
# kernel uses srctree=".." and every variant compiles with the same
# relative paths: ccache then shares objects of files no series touches
# (little, when a series changes a header most files include: fs.h).
out_dir() { echo "$BUILD/trees/$1/.o-$2"; }
kernel_image() { echo "$(out_dir "$1" "$2")/arch/x86/boot/bzImage"; }
headers_dir() { echo "$BUILD/headers/$1"; }

# kbuild_env: the environment of every kernel build (kernel-build, and
# lint's per-patch builds, which must hit the same cache): ccache keyed
# on paths relative to build/trees and on the compiler's content, and
# fixed build stamps, so that a file compiles to the same object in
# every tree (docs/variants.md#ccache)
kbuild_env() {
	export CCACHE_BASEDIR=$BUILD/trees CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export CCACHE_COMPILERCHECK=content
	export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
	export KBUILD_BUILD_USER=ublkzc KBUILD_BUILD_HOST=build
}

# Stage timing: stages_start once, then stage_begin NAME; ...; stage_end
# per stage, and stage_report at the end.
stages_start() {
	mkdir -p "$BUILD"
	: > "$BUILD/stage-times.txt"
	STAGES_T0=$(date +%s)
}
stage_begin() { STAGE_NAME=$1; STAGE_T0=$(date +%s); log "== $1"; }
stage_end() {
	local dt=$(( $(date +%s) - STAGE_T0 ))
	log "== $STAGE_NAME done in ${dt}s"
	mkdir -p "$BUILD"
	printf '%-40s %5ss\n' "$STAGE_NAME" "$dt" >> "$BUILD/stage-times.txt"
}
# stage_report: the table of the stages since stages_start and the total
stage_report() {
	echo
	echo "Stage timings:"
	cat "$BUILD/stage-times.txt"
	printf '%-40s %5ss\n' "total" "$(( $(date +%s) - STAGES_T0 ))"
}

# setup_stages [V...]: the stages every job (check, stress, ab) runs
# before its own: apt packages, the kernel source of the bases variants
# V (default: every variant) need, 6.12's always, and the base kernel's
# uapi headers, which abtool and the selftests build against (they probe
# the series at run time, so one binary runs on every variant)
setup_stages() {
	local b v bases=(6.12)
	stage_begin "deps"; "$TOP/scripts/deps"; stage_end
	[ $# -gt 0 ] || set -- "${VARIANTS_ALL[@]}" "${VARIANTS_EXTRA[@]}"
	for v; do
		b=$(variant_base "$v")
		in_list "$b" "${bases[@]}" || bases+=("$b")
	done
	for b in "${bases[@]}"; do
		stage_begin "kernel source $b"
		"$TOP/scripts/kernel-source" "$b" >/dev/null
		stage_end
	done
	stage_begin "headers base"; "$TOP/scripts/kernel-headers" base; stage_end
}

# ---- the selftest suite on booted kernels (scripts/check, scripts/stress)

# build_userspace OUT: abtool (and its unit tests) and the selftests,
# against the base kernel's uapi headers; build logs in OUT.
build_userspace() {
	make -s -C "$TOP/tools/abtool" UAPI="$(headers_dir base)" all tests \
		> "$1/abtool-build.log" 2>&1 ||
		{ cat "$1/abtool-build.log"; STEP="abtool build" die "abtool does not build"; }
	make -s -C "$TOP/selftests/ublk_zc" all tests.list > "$1/selftests-build.log" 2>&1 ||
		{ cat "$1/selftests-build.log"; STEP="selftests build" die "selftests do not build"; }
}

# suite_setup OUT V...: the stages before any kernel: setup_stages for
# variants V, then abtool and the selftests.
suite_setup() {
	local out=$1
	shift
	setup_stages "$@"
	stage_begin "abtool + selftests build"; build_userspace "$out"; stage_end
}

# suite_report OUT: the stage timings and the closing line
# "N passed, N failed, N skipped" over OUT's TAP files.
suite_report() {
	stage_report
	echo
	"$TOP/scripts/tap-summary" "$1"/*.tap
}

# A failure of a whole step counts as one failed test and names itself:
# a TAP stream of its own, so that it leaves the plan of the stream
# before it (if any) alone.
step_failed() { # file what
	printf 'TAP version 13\n1..1\nnot ok 1 %s\n' "$2" >> "$1"
	log "FAILED: $2"
}

# run_tap FILE WHAT CMD...: run CMD, its output (TAP) to FILE; a CMD that
# fails without saying so in its TAP (a test binary that aborts before
# printing anything) counts as a failed test
run_tap() {
	local file=$1 what=$2 rc
	shift 2
	set +e
	"$@" > "$file" 2>&1
	rc=$?
	set -e
	[ "$rc" = 0 ] || grep -Eq '^(# )*not ok [0-9]' "$file" ||
		step_failed "$file" "$what exited with $rc but reported no failure"
}

# host_unit_tests OUT: the host-side tests, no kernel needed: abtool's
# unit tests (OUT/unit.tap) and the project scripts' own tests
# (scripts/tests, OUT/scripts.tap); failures are shown as they come.
host_unit_tests() {
	run_tap "$1/unit.tap" "make test (abtool unit tests)" \
		make -s -C "$TOP/tools/abtool" test
	run_tap "$1/scripts.tap" "scripts/tests/run" "$TOP/scripts/tests/run"
	grep -E '^(# )*(not ok|# FAIL)' "$1/unit.tap" "$1/scripts.tap" || true
	echo "unit: $("$TOP/scripts/tap-summary" "$1/unit.tap")"
	echo "scripts: $("$TOP/scripts/tap-summary" "$1/scripts.tap")"
}

# variant_skipped V OUT: true, with OUT/V.tap saying so, when variant V
# has no patches yet (base always runs).
variant_skipped() {
	if variant_has_patches "$1"; then return 1; fi
	log "variant $1: no patches yet in patches/$1 -- its tests are skipped"
	printf 'TAP version 13\n1..1\nok 1 variant %s # SKIP no patches yet\n' \
		"$1" > "$2/$1.tap"
}

# intree_copy V: copy selftests/ublk_zc (what git tracks or would track:
# no build products) to V's kernel tree, tools/testing/selftests/ublk_zc,
# replacing an earlier copy.  The tree is a git worktree made from the
# series; the copy is a directory git ignores (Debian's .gitignore
# ignores every untracked file), which kernel-build (O= builds), lint
# (its own trees, diffs of commits) and variant-tree (git clean without
# -x) leave alone.
intree_copy() {
	local src=$TOP/selftests/ublk_zc dst
	dst=$(tree_dir "$1")/tools/testing/selftests/ublk_zc
	rm -rf "$dst" && mkdir -p "$dst" || return 1
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		tar -C "$src" -cf - --null -T - | tar -C "$dst" -xf -
}

# intree_make V ARGS...: make in V's tools/testing/selftests for the
# ublk_zc target, as a kernel developer runs a kselftest, against V's
# own uapi headers (headers_install output: the tree has no usr/include,
# its builds are out of tree)
intree_make() {
	local v=$1
	shift
	make -s -C "$(tree_dir "$v")/tools/testing/selftests" TARGETS=ublk_zc \
		KHDR_INCLUDES="-isystem $(headers_dir "$v")/include" "$@"
}

# intree_build OUT V: V's headers, the copy, and its build on the host
# (the guest cannot write the tree); the log in OUT/intree-V-build.log
intree_build() {
	local log=$1/intree-$2-build.log
	{
		"$TOP/scripts/kernel-headers" "$2" && intree_copy "$2" &&
		intree_make "$2" -j"$(nproc)"
	} > "$log" 2>&1 || { cat "$log"; return 1; }
}

# upstream_suite_make V ARGS...: make in V's tools/testing/selftests for
# upstream's own ublk target (kublk and its test_*.sh, on a 7.3-based
# variant), against V's uapi headers: the Makefile looks for them in the
# tree's usr/include, which an O= build does not fill, and kublk needs two
# liburing 2.4 functions Debian 12's liburing 2.3 lacks
# (selftests/upstream/liburing_compat.h)
upstream_suite_make() {
	local v=$1
	shift
	make -s -C "$(tree_dir "$v")/tools/testing/selftests" TARGETS=ublk \
		USERCFLAGS="-isystem $(headers_dir "$v")/include -include $TOP/selftests/upstream/liburing_compat.h" \
		"$@"
}

# upstream_suite_build OUT V: build upstream's ublk selftests in V's tree
# on the host (the guest cannot write the tree); log in
# OUT/upstream-suite-V-build.log
upstream_suite_build() {
	local log=$1/upstream-suite-$2-build.log
	{ "$TOP/scripts/kernel-headers" "$2" && upstream_suite_remake "$2"; } \
		> "$log" 2>&1 || { cat "$log"; return 1; }
}
# upstream_suite_remake V: make does not see the compat header or the
# uapi headers' version: a change of either rebuilds from clean
upstream_suite_remake() {
	local dir stamp
	dir=$(tree_dir "$1")/tools/testing/selftests/ublk
	stamp=$(cat "$TOP/selftests/upstream/liburing_compat.h" \
		"$(headers_dir "$1")/.stamp" | sha256sum | cut -c1-16)
	if [ "$(cat "$dir/.ublk-zc-stamp" 2> /dev/null)" != "$stamp" ]; then
		upstream_suite_make "$1" clean || return 1
	fi
	upstream_suite_make "$1" -j"$(nproc)" && echo "$stamp" > "$dir/.ublk-zc-stamp"
}

# has_upstream_suite V: V's kernel tree carries upstream's ublk selftests
# (a 7.3-based variant), which make check runs beside ours
has_upstream_suite() { [ "$(variant_base "$1")" = 7.3 ]; }

# suite_build OUT V F: build kernel V/F, and for a variant listed in
# SUITE_INTREE the copy of selftests/ublk_zc in V's kernel tree, which the
# suite then runs through kselftest's Makefile (make -C
# tools/testing/selftests TARGETS=ublk_zc run_tests): the proof that the
# directory stands alone, at no extra run of the suite.  A failure is one
# failed test in OUT/V-F.tap (which this starts) and a non-zero return.
suite_build() {
	local out=$1 v=$2 f=$3 tap=$1/$2-$3.tap
	: > "$tap"
	stage_begin "kernel $v/$f"
	if ! "$TOP/scripts/kernel-build" "$v" "$f"; then
		step_failed "$tap" "kernel build $v/$f"
		stage_end
		return 1
	fi
	# after kernel-build: remaking the tree would remove the copy
	# shellcheck disable=SC2086 # a list of variants
	if in_list "$v" ${SUITE_INTREE:-} && ! intree_build "$out" "$v"; then
		step_failed "$tap" "in-tree kselftest build $v"
		stage_end
		return 1
	fi
	if has_upstream_suite "$v" && ! upstream_suite_build "$out" "$v"; then
		step_failed "$tap" "upstream ublk selftests build $v"
		stage_end
		return 1
	fi
	stage_end
}

# suite_boot NAME OUT V F TIMEOUT CLOCK [VAR=VALUE...]: boot kernel V/F
# (with CLOCK: wall or icount) and run scripts/guest-tests with the VARs
# set, within TIMEOUT seconds; the TAP goes to OUT/NAME.tap and the run
# directory is OUT/vm-NAME.  A hung or crashed guest, a kernel report, a
# debug kernel without its final kmemleak scan, or a boot on which
# nothing passed counts as one failed test there.
suite_boot() {
	local name=$1 out=$2 v=$3 f=$4 tmo=$5 clock=$6 rc sum append reports
	local tap=$2/$1.tap dir=$2/vm-$1
	shift 6
	# the debug flavor's soft-lockup detector: 120 s, not 20 s, under TCG
	append=
	[ "$f" = debug ] && append=watchdog_thresh=60
	set +e
	"$TOP/scripts/vm-run" --timeout "$tmo" --clock "$clock" --dir "$dir" \
		${SUITE_MEM:+--mem "$SUITE_MEM"} \
		${append:+--append "$append"} "$(kernel_image "$v" "$f")" -- \
		env UBLK_ZC_VARIANT="$v" UBLK_ZC_FLAVOR="$f" "$@" \
		"$TOP/scripts/guest-tests" \
		| tee -a "$tap"
	rc=${PIPESTATUS[0]}
	set -e
	# a debug kernel's kmemleak must still be on at the end and scan
	# (vm-run has already failed the run for any other report)
	if [ "$rc" = 0 ] && [ "$f" = debug ] &&
	   ! reports=$("$TOP/scripts/console-scan" --kmemleak "$dir/console.log"); then
		step_failed "$tap" "$name: ${reports##*$'\n'}"
	fi
	case $rc in
	0) ;;
	124) step_failed "$tap" "$name: guest timed out" ;;
	125) step_failed "$tap" "$name: guest gave no status (panic?)" ;;
	126) step_failed "$tap" "$name: kernel report in console" ;;
	*) grep -q '^not ok' "$tap" ||
		step_failed "$tap" "$name: tests exited with $rc" ;;
	esac
	# a kernel on which nothing passed (everything skipped) ran nothing:
	# a failure even when other kernels of the run passed
	sum=$("$TOP/scripts/tap-summary" "$tap" 2>/dev/null) || true
	case $sum in
	"0 passed, "*) grep -Eq '^(# )*not ok [0-9]' "$tap" ||
		step_failed "$tap" "$name: no test passed (${sum##*, })" ;;
	esac
	echo "$name: $("$TOP/scripts/tap-summary" "$tap")"
}

# suite_test OUT V F TIMEOUT [VAR=VALUE...]: boot kernel V/F, built by
# suite_build, and run selftests/ublk_zc in the guest (within TIMEOUT
# seconds) with the VARs set; the TAP goes on in OUT/V-F.tap (suite_boot).
# The guest knows its variant (UBLK_ZC_VARIANT): what V must have and
# lacks fails there instead of skipping.  On a 7.3-based variant, a
# second boot runs upstream's own selftests/ublk into OUT/V-F-upstream.tap,
# under icount: its tests time themselves (an I/O that must fail within
# 5 s, fio under a 5 s timeout), and a TCG guest's wall clock on a busy
# 2-core host runs many times slower than they assume; icount's guest
# clock counts its own instructions (docs/testing.md, "Upstream's own
# selftests").  That guest has 4 GiB: its tests keep 256-512 MiB backing
# files in the guest's tmpfs (half the memory), and in one run of the
# whole list the stripe tests' first writes failed with ENOSPC in a
# 2 GiB guest, though not when run alone.
suite_test() {
	local out=$1 v=$2 f=$3 tmo=$4 genv=() label=
	shift 4
	# shellcheck disable=SC2086 # a list of variants
	in_list "$v" ${SUITE_INTREE:-} && genv=(UBLK_ZC_INTREE=1) label=" (in-tree)"
	stage_begin "tests $v/$f$label"
	suite_boot "$v-$f" "$out" "$v" "$f" "$tmo" wall "${genv[@]}" "$@"
	stage_end
	if has_upstream_suite "$v"; then
		stage_begin "tests $v/$f: upstream's selftests/ublk"
		SUITE_MEM=4096 suite_boot "$v-$f-upstream" "$out" "$v" "$f" \
			"$tmo" icount UBLK_ZC_UPSTREAM_SUITE=1 "$@"
		stage_end
	fi
}

# suite_run OUT V F TIMEOUT [VAR=VALUE...]: suite_build, then suite_test
suite_run() {
	suite_build "$1" "$2" "$3" && suite_test "$@"
	return 0
}
