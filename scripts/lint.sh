#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make lint': the kernel code against the kernel's own checkers, the
# manual pages against mandoc, and pmclog(1) against the tool's options.
#
#   checkpatch.pl --strict   kmod/, the test modules (tests/kmod/) and the
#                            uapi header, no notes allowed
#   sparse (make C=2 W=1)    kmod/, built against the headers of each
#                            LINT_KERNELS kernel (default: $KERNELS or
#                            6.1-cloud); any warning fails
#   mandoc -Tlint -Wwarning  man/*.[1-9] (groff -ww when mandoc is absent)
#   tests/man/check-options.sh   every subcommand and option in pmclog(1)
#
# checkpatch.pl comes from CHECKPATCH=path, else a kernel source tree
# (/usr/src/linux-source-*), else the linux-source-* tarball, from which
# the script, its spelling list and const_structs are unpacked into
# build/lint/.  scripts/install-deps.sh --lint installs what is missing.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${PMCLOG_BUILD:-$repo/build}/lint
# shellcheck source=tests/vm/kernels.sh
. "$repo/tests/vm/kernels.sh"

failed=0
step() { echo "lint: $*"; }
fail() { echo "lint: FAIL: $*" >&2; failed=1; }

find_checkpatch() {
	local d t
	if [[ -n ${CHECKPATCH:-} ]]; then
		echo "$CHECKPATCH"
		return
	fi
	for d in $(ls -d /usr/src/linux-source-*/ 2>/dev/null | sort -V -r); do
		[[ -x $d/scripts/checkpatch.pl ]] && { echo "$d/scripts/checkpatch.pl"; return; }
	done
	t=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
	[[ -n $t ]] || return 1
	d=$(basename "$t")
	d=${d%.tar.*}
	if [[ ! -x $build/$d/scripts/checkpatch.pl ]]; then
		mkdir -p "$build"
		tar -xf "$t" -C "$build" "$d/scripts/checkpatch.pl" \
			"$d/scripts/spelling.txt" "$d/scripts/const_structs.checkpatch" ||
			return 1
	fi
	echo "$build/$d/scripts/checkpatch.pl"
}

run_checkpatch() {
	local cp out
	if ! cp=$(find_checkpatch); then
		fail "no checkpatch.pl: run scripts/install-deps.sh --lint (linux-source-6.1), or set CHECKPATCH"
		return
	fi
	step "checkpatch --strict ($cp)"
	# --no-tree: not a kernel tree.  In the uapi header, CamelCase is
	# C11's _Static_assert, a keyword, for the userland build, and the
	# lists written once (PMCLOG_RECORD_TYPES(X) and the like) are
	# sequences of X() expanded into enum constants, by design: the
	# kernel's own uapi/linux/bpf.h (___BPF_FUNC_MAPPER, __BPF_ENUM_FN)
	# draws COMPLEX_MACRO and MACRO_ARG_REUSE the same way.
	# The tracked sources only: an in-tree build leaves kmod/*.mod.c.
	out=$(cd "$repo" && {
		git ls-files -z 'kmod/*.[ch]' 'tests/kmod/*.[ch]' |
			xargs -0 "$cp" --strict --no-tree --terse --show-types -f
		"$cp" --strict --no-tree --terse --show-types \
			--ignore CAMELCASE,COMPLEX_MACRO,MACRO_ARG_REUSE \
			-f include/uapi/linux/pmclog.h
	} 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks')
	if [[ -n $out ]]; then
		echo "$out"
		fail "checkpatch --strict"
	fi
}

run_sparse() {
	local spec rel kdir src out
	if ! command -v sparse >/dev/null; then
		fail "no sparse: run scripts/install-deps.sh --lint"
		return
	fi
	for spec in ${LINT_KERNELS:-${KERNELS:-6.1-cloud}}; do
		if ! rel=$(kernel_resolve "$spec"); then
			fail "cannot resolve kernel '$spec'"
			continue
		fi
		kdir=/usr/src/linux-headers-$rel
		if [[ ! -d $kdir ]]; then
			fail "no headers at $kdir: KERNELS='$spec' scripts/install-deps.sh"
			continue
		fi
		step "sparse and W=1 against $rel"
		# A snapshot of the module's sources: no objects shared with 'make module'.
		src=$build/$rel/src
		rm -rf "$src"
		mkdir -p "$src/include/uapi/linux"
		cp -a "$repo/Kbuild" "$src/"
		cp -a "$repo/kmod" "$src/"
		cp -a "$repo/include/uapi/linux/pmclog.h" "$src/include/uapi/linux/"
		find "$src/kmod" -name '*.o' -o -name '*.ko' -o -name '.*.cmd' | xargs -r rm -f
		out=$(make -s -C "$kdir" M="$src" C=2 W=1 modules 2>&1 |
			grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving) directory|^Skipping BTF generation')
		if [[ -n $out ]]; then
			echo "$out"
			fail "sparse/W=1 against $rel"
		fi
	done
}

run_man() {
	local m out
	step "manual pages"
	for m in "$repo"/man/*.[1-9]; do
		if command -v mandoc >/dev/null; then
			out=$(mandoc -Tlint -Wwarning "$m" 2>&1)
		elif command -v groff >/dev/null; then
			out=$(groff -mandoc -ww -z "$m" 2>&1)
		else
			fail "neither mandoc nor groff: run scripts/install-deps.sh --lint"
			return
		fi
		if [[ -n $out ]]; then
			echo "$out"
			fail "$(basename "$m")"
		fi
	done
	if ! out=$("$repo/tests/man/check-options.sh"); then
		grep -v '^ok' <<<"$out"
		fail "pmclog(1) lacks options of the tool"
	fi
}

# Rules for kmod/ that our VMs cannot check (TCG has no IBT), each with the
# crash it prevents.  kmod_forbid ERE WHAT: fail on a code line (comment
# lines are not code) of the tracked kmod sources that matches ERE.
kmod_forbid() {
	local hits
	hits=$(git -C "$repo" ls-files -- 'kmod/*.[ch]' | sed "s|^|$repo/|" |
		xargs grep -nE "$1" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
	if [[ -n $hits ]]; then
		echo "$hits"
		fail "$2"
	fi
}

run_kmod_rules() {
	step "kmod rules"
	# IBT: a function found with a kprobe and called through a pointer
	# faults when objtool sealed it (kallsyms_lookup_name on Debian 6.12).
	kmod_forbid '"kallsyms_lookup_name"|"kallsyms_on_each_symbol"|\.addr\)? *\(' \
		"kmod calls a kernel function found through a kprobe (IBT)"
	# Static keys: flipping one patches the hooks' text under their feet
	# ("Oops: int3" on 6.12); the hooks test a counter instead.
	kmod_forbid 'static_branch_|static_key_|DEFINE_STATIC_KEY' "kmod uses a static key"
}

mkdir -p "$build"
run_kmod_rules
run_checkpatch
run_sparse
run_man
if ((failed)); then
	echo "lint: failed" >&2
	exit 1
fi
echo "lint: clean"
