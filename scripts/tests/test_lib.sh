#!/usr/bin/env bash
# scripts/lib.sh as the one place of the variant and flavor lists, the
# kernel build environment and the stages every job shares: the
# validators follow VARIANTS_ALL and FLAVORS_ALL, `make kernels` builds
# what lib.sh lists (a variant added there alone is built), and the
# setup stages and their report on stub scripts.
# LIB_SCRIPTS=DIR tests another copy of lib.sh, scripts/kernels and the
# Makefile (DIR/../Makefile).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
src=${LIB_SCRIPTS:-$TOP/scripts}
F=$T_TMP/top

# stub tree: the real lib.sh, kernels and Makefile; kernel-build, deps,
# kernel-source and kernel-headers only say they ran; splice-rsrc has a
# patch, fused only its cover letter
mkdir -p "$F/scripts" "$F/patches/splice-rsrc" "$F/patches/fused"
cp "$src/lib.sh" "$src/kernels" "$F/scripts/"
cp "$src/../Makefile" "$F/"
for s in deps kernel-source kernel-headers kernel-build; do
	# shellcheck disable=SC2016 # the stub expands them
	printf '#!/bin/sh\necho "%s $*" >> "$STUB_LOG"\n' "$s" > "$F/scripts/$s"
done
chmod +x "$F"/scripts/*
touch "$F/patches/splice-rsrc/0001-a.patch" "$F/patches/fused/0000-cover-letter.patch"

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

t_plan 15
# shellcheck disable=SC2016 # in_lib's shell expands them
t_ok "valid_flavor accepts every flavor of FLAVORS_ALL" \
	lib_ok 'for f in "${FLAVORS_ALL[@]}"; do valid_flavor "$f"; done'
t_ok "valid_flavor follows FLAVORS_ALL (a flavor added there is valid)" \
	lib_ok 'FLAVORS_ALL+=(kcsan); valid_flavor kcsan'
t_ok "valid_flavor rejects a flavor not in FLAVORS_ALL, naming the known ones" \
	rejects "valid_flavor fast" "unknown flavor 'fast' (known: perf debug)"
t_ok "valid_variant rejects a variant it does not know, naming the known ones" \
	rejects "valid_variant nope" "unknown variant 'nope' (known: base splice-rsrc fused bpf regbuf)"

t_is "make check's default: base/perf, the named variants on debug, the others on perf" \
	"$(in_lib 'check_default_matrix splice-rsrc')" "base/perf splice-rsrc/debug fused/perf bpf/perf"
t_is "make check's default with no debug variant: every kernel perf" \
	"$(in_lib 'check_default_matrix')" "base/perf splice-rsrc/perf fused/perf bpf/perf"
t_is "make check's default with two debug variants" \
	"$(in_lib 'check_default_matrix fused bpf')" "base/perf splice-rsrc/perf fused/debug bpf/debug"

kernels all
t_is "make kernels: every variant with patches in every flavor" \
	"$?:$(cat "$T_TMP/all.built")" "0:base/perf base/debug splice-rsrc/perf splice-rsrc/debug "
t_ok "make kernels: a variant without patches is named and skipped" \
	grep -q "variant fused: no patches yet, not built" "$T_TMP/all.out"
kernels some VARIANTS=splice-rsrc FLAVORS=debug
t_is "make kernels VARIANTS=... FLAVORS=...: only those" \
	"$?:$(cat "$T_TMP/some.built")" "0:splice-rsrc/debug "
kernels bad VARIANTS="base nope"
t_is "make kernels: an unknown variant fails before any build" \
	"$?:$(cat "$T_TMP/bad.built")" "2:"
sed -i 's/^VARIANTS_ALL=(\(.*\))/VARIANTS_ALL=(\1 regbuf)/' "$F/scripts/lib.sh"
mkdir -p "$F/patches/regbuf" && touch "$F/patches/regbuf/0001-b.patch"
kernels added FLAVORS=perf
t_is "make kernels: a variant added to lib.sh alone is built" \
	"$?:$(cat "$T_TMP/added.built")" "0:base/perf splice-rsrc/perf regbuf/perf "

# shellcheck disable=SC2016
t_is "kbuild_env: ccache relative to build/trees, fixed build stamps" \
	"$(in_lib 'kbuild_env; env' | grep -E '^(CCACHE_BASEDIR|KBUILD_BUILD_USER)=' | sort | tr '\n' ' ')" \
	"CCACHE_BASEDIR=$F/build/trees KBUILD_BUILD_USER=ublkzc "
report=$(STUB_LOG=$T_TMP/setup.log in_lib 'stages_start; setup_stages; stage_report' 2> /dev/null)
t_is "setup_stages: deps, kernel source, base headers, in that order" \
	"$(tr '\n' ' ' < "$T_TMP/setup.log" 2> /dev/null)" "deps  kernel-source  kernel-headers base "
t_is "stage_report: a table of the stages and the total" \
	"$(sed -n 's/^\([a-z][a-z ]*[a-z]\)  *[0-9]*s$/\1/p' <<< "$report" | tr '\n' ,)" \
	"deps,kernel source,headers base,total,"
t_done
