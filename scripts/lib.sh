# shellcheck shell=bash
# Common helpers for the project's scripts: paths, logging, failing with
# the variant and the step named, and the list of variants.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
VARIANTS_ALL=(base splice-rsrc fused)
FLAVORS_ALL=(perf debug)

# The step currently running, printed on failure.
STEP=${STEP:-}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '\n*** WARNING: %s\n\n' "$*" >&2; }
die() {
	printf 'ERROR%s: %s\n' "${STEP:+ [$STEP]}" "$*" >&2
	exit 1
}

# Series files of a variant, cover letter excluded, in apply order.
series_patches() {
	local dir=$TOP/patches/$1
	[ "$1" = base ] && return 0
	[ -d "$dir" ] || die "no patch directory patches/$1"
	find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

valid_variant() {
	local v
	for v in "${VARIANTS_ALL[@]}"; do [ "$v" = "$1" ] && return 0; done
	die "unknown variant '$1' (known: ${VARIANTS_ALL[*]})"
}

valid_flavor() {
	case $1 in perf|debug) ;; *) die "unknown flavor '$1' (perf|debug)";; esac
}

tree_dir() { echo "$BUILD/trees/$1"; }
# Objects live in a direct subdirectory of the source tree so that the
# kernel uses srctree=".." and every variant compiles with the same
# relative paths: ccache then shares objects of files no series touches.
out_dir() { echo "$BUILD/trees/$1/.o-$2"; }
kernel_image() { echo "$(out_dir "$1" "$2")/arch/x86/boot/bzImage"; }
headers_dir() { echo "$BUILD/headers/$1"; }

# Stage timing: stage_begin NAME; ...; stage_end
stage_begin() { STAGE_NAME=$1; STAGE_T0=$(date +%s); log "== $1"; }
stage_end() {
	local dt=$(( $(date +%s) - STAGE_T0 ))
	log "== $STAGE_NAME done in ${dt}s"
	mkdir -p "$BUILD"
	printf '%-40s %5ss\n' "$STAGE_NAME" "$dt" >> "$BUILD/stage-times.txt"
}
