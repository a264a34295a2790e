#!/usr/bin/env bash
# scripts/lib.sh as the one reader of the variant registry
# (selftests/ublk_zc/variants) and the place of the flavor list, the
# kernel build environment and the stages every job shares: the
# validators follow the registry and FLAVORS_ALL, `make kernels` builds
# what the registry lists (a variant added there alone is built), and the
# setup stages and their report on stub scripts.
# LIB_SCRIPTS=DIR tests another copy of lib.sh, scripts/kernels and the
# Makefile (DIR/../Makefile).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
src=${LIB_SCRIPTS:-$TOP/scripts}
F=$T_TMP/top

# stub tree: the real lib.sh, kernels and Makefile; kernel-build, deps,
# kernel-source and kernel-headers only say they ran; splice-rsrc has a
# patch, fused and bpf only their cover letters; base and upstream are
# stock (no patch directory)
mkdir -p "$F/scripts" "$F/patches/splice-rsrc" "$F/patches/fused" \
	"$F/patches/bpf" "$F/selftests/ublk_zc"
cp "$src/lib.sh" "$src/kernels" "$F/scripts/"
cp "$src/../selftests/ublk_zc/variants" "$F/selftests/ublk_zc/"
cp "$src/../Makefile" "$F/"
for s in deps kernel-source kernel-headers kernel-build; do
	# shellcheck disable=SC2016 # the stub expands them
	printf '#!/bin/sh\necho "%s $*" >> "$STUB_LOG"\n' "$s" > "$F/scripts/$s"
done
chmod +x "$F"/scripts/*
touch "$F/patches/splice-rsrc/0001-a.patch" "$F/patches/fused/0000-cover-letter.patch" \
	"$F/patches/bpf/0000-cover-letter.patch"

# in_lib CMD: CMD in a shell that sourced the stub tree's lib.sh
in_lib() {
	# shellcheck disable=SC2016 # the inner shell expands them
	BUILD=$F/build bash -c '. "$1/scripts/lib.sh"; shift; eval "$@"' _ "$F" "$@" 2>&1
}
# lib_ok CMD: in_lib, quiet; rejects CMD MESSAGE: CMD (in_lib) fails
# saying MESSAGE (both run through t_ok)
# shellcheck disable=SC2317
lib_ok() { in_lib "$@" > /dev/null; }
# shellcheck disable=SC2317
rejects() {
	local out
	out=$(in_lib "$1") && return 1
	grep -qF -- "$2" <<< "$out" || { t_diag "$out"; return 1; }
}
# kernels CASE MAKE_ARGS...: make kernels on the stub tree; what it
# built ("V/F" each) in $T_TMP/CASE.built, its output in CASE.out
kernels() {
	local c=$1
	shift
	: > "$T_TMP/$c.log"
	STUB_LOG=$T_TMP/$c.log BUILD=$F/build make -s -C "$F" kernels "$@" \
		> "$T_TMP/$c.out" 2>&1
	local rc=$?
	sed -n 's/^kernel-build \([^ ]*\) \([^ ]*\)$/\1\/\2/p' "$T_TMP/$c.log" |
		tr '\n' ' ' > "$T_TMP/$c.built"
	return $rc
}

t_plan 18
# shellcheck disable=SC2016 # in_lib's shell expands them
t_ok "valid_flavor accepts every flavor of FLAVORS_ALL" \
	lib_ok 'for f in "${FLAVORS_ALL[@]}"; do valid_flavor "$f"; done'
t_ok "valid_flavor follows FLAVORS_ALL (a flavor added there is valid)" \
	lib_ok 'FLAVORS_ALL+=(kcsan); valid_flavor kcsan'
t_ok "valid_flavor rejects a flavor not in FLAVORS_ALL, naming the known ones" \
	rejects "valid_flavor fast" "unknown flavor 'fast' (known: perf debug)"
t_ok "valid_variant rejects a variant it does not know, naming the known ones" \
	rejects "valid_variant nope" "unknown variant 'nope' (known: base upstream splice-rsrc bpf fused regbuf splice-rsrc-7.3)"

t_is "make check's default: base/perf, the named variants on debug, the others on perf" \
	"$(in_lib 'check_default_matrix splice-rsrc')" "base/perf upstream/perf splice-rsrc/debug bpf/perf"
t_is "make check's default with no debug variant: every kernel perf" \
	"$(in_lib 'check_default_matrix')" "base/perf upstream/perf splice-rsrc/perf bpf/perf"
t_is "make check's default with two debug variants" \
	"$(in_lib 'check_default_matrix splice-rsrc bpf')" "base/perf upstream/perf splice-rsrc/debug bpf/debug"
t_is "the registry: its matrix column makes the lists, in file order" \
	"$(in_lib 'echo "${VARIANTS_ALL[*]}|${VARIANTS_EXTRA[*]}|${CHECK_VARIANTS[*]}"')" \
	"base upstream splice-rsrc bpf fused|regbuf splice-rsrc-7.3|base upstream splice-rsrc bpf"
t_is "the registry: a variant's base and data paths" \
	"$(in_lib 'variant_base upstream; variant_base fused; variant_paths splice-rsrc')" \
	"$(printf '7.3\n6.12\ncopy user_copy splice autolend')"
t_ok "the registry: a variant it does not list has no data paths" \
	rejects "variant_paths nope" "variant 'nope' is not in"

kernels all
t_is "make kernels: every variant with patches in every flavor" \
	"$?:$(cat "$T_TMP/all.built")" "0:base/perf base/debug upstream/perf upstream/debug splice-rsrc/perf splice-rsrc/debug "
t_ok "make kernels: a variant without patches is named and skipped" \
	grep -q "variant fused: no patches yet, not built" "$T_TMP/all.out"
kernels some VARIANTS=splice-rsrc FLAVORS=debug
t_is "make kernels VARIANTS=... FLAVORS=...: only those" \
	"$?:$(cat "$T_TMP/some.built")" "0:splice-rsrc/debug "
kernels bad VARIANTS="base nope"
t_is "make kernels: an unknown variant fails before any build" \
	"$?:$(cat "$T_TMP/bad.built")" "2:"
printf 'sixth\t6.12\tdefault\tcopy\n' >> "$F/selftests/ublk_zc/variants"
mkdir -p "$F/patches/sixth" && touch "$F/patches/sixth/0001-b.patch"
kernels added FLAVORS=perf
t_is "make kernels: a variant added to the registry alone is built" \
	"$?:$(cat "$T_TMP/added.built")" "0:base/perf upstream/perf splice-rsrc/perf sixth/perf "

# shellcheck disable=SC2016
t_is "kbuild_env: ccache relative to build/trees, fixed build stamps" \
	"$(in_lib 'kbuild_env; env' | grep -E '^(CCACHE_BASEDIR|KBUILD_BUILD_USER)=' | sort | tr '\n' ' ')" \
	"CCACHE_BASEDIR=$F/build/trees KBUILD_BUILD_USER=ublkzc "
report=$(STUB_LOG=$T_TMP/setup.log in_lib 'stages_start; setup_stages; stage_report' 2> /dev/null)
t_is "setup_stages: deps, kernel source of each base, base headers, in that order" \
	"$(tr '\n' ' ' < "$T_TMP/setup.log" 2> /dev/null)" "deps  kernel-source 6.12 kernel-source 7.3 kernel-headers base "
t_is "stage_report: a table of the stages and the total" \
	"$(sed -n 's/^\([a-z][a-z0-9. ]*[a-z0-9]\)  *[0-9]*s$/\1/p' <<< "$report" | tr '\n' ,)" \
	"deps,kernel source 6.12,kernel source 7.3,headers base,total,"
t_done
