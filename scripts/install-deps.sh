#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages that building pmclog and running its tests
# need, and only those that are missing.  Idempotent; a no-op (well under
# a second) when everything is there, so 'make check' can always call it.
#
#   KERNELS="6.1-cloud 6.12-cloud" scripts/install-deps.sh
#   scripts/install-deps.sh --lint      also what 'make lint' needs
#   scripts/install-deps.sh --bench     also what 'make bench' needs
#
# KERNELS (default 6.1-cloud) names the test kernels whose headers the
# VM tests build the module against; see tests/vm/kernels.sh.  A debug
# kernel (6.1-debug) has no headers package: what builds it from
# Debian's linux-source-6.1 comes instead (scripts/build-debug-kernel.sh).
# --lint adds sparse, mandoc and linux-source-6.1, whose tarball holds
# the checkpatch.pl that scripts/lint.sh runs.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/vm/kernels.sh
. "$repo/tests/vm/kernels.sh"

# clang builds the libFuzzer targets (tests/fuzz); libFuzzer itself is in
# libclang-rt-dev, which clang only recommends.  python3's json module
# parses the report's JSON in the unit tests.  protoc-c and libprotobuf-c
# build report --format pprof (profile.proto); golang-go's `go tool pprof`
# is the pprof reader its unit test decodes the profile with.  chromium
# loads pmclog flamegraph's page in tests/unit/check_flamegraph.sh.
# libbpf-dev and bpftool build the BPF collector (clang compiles its
# programs, bpftool makes their skeleton; record --bpf).
base_packages=(
	build-essential gcc make pkg-config
	libelf-dev libdw-dev zlib1g-dev liblzma-dev libzstd-dev libiberty-dev libdebuginfod-dev
	protobuf-c-compiler libprotobuf-c-dev golang-go libbpf-dev bpftool
	libcmocka-dev python3
	chromium
	clang libclang-rt-dev
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod dkms
)

lint_packages=(sparse mandoc linux-source-6.1)

# make bench runs Debian's perf beside pmclog in the VM: linux-perf is
# unpacked into build/bench, never installed; these are the libraries it
# links (its Depends), so that it runs and ldd finds them for the VM;
# valgrind counts the sample path's instructions.
bench_packages=(libbabeltrace1 libcap2 libdw1 libelf1 liblzma5 libnuma1 libopencsd1
	libperl5.36 libpython3.11 libslang2 libunwind8 libzstd1 zlib1g xz-utils valgrind)

# What a kernel build needs besides the compiler: the source, the parser
# generators, pahole, bc for the timeconst header, libssl for the signing
# tools, libelf for objtool.
debug_kernel_packages=(linux-source-6.1 flex bison dwarves bc libssl-dev libelf-dev)

say() { echo "install-deps: $*"; }

# Packages from the arguments that dpkg does not list as installed.
missing_packages() {
	local installed
	# One dpkg-query for all: fast, and unknown names just print nothing.
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null |
		awk '$2 == "ii" { print $1 }' || true)
	local p
	for p in "$@"; do
		grep -qxF "$p" <<<"$installed" || echo "$p"
	done
}

# Run a command as root: directly, through sudo, or not at all.
as_root() {
	if ((EUID == 0)); then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		return 127
	fi
}

kernel_packages() {
	local spec rel
	for spec in ${KERNELS:-6.1-cloud}; do
		if kernel_spec_is_debug "$spec"; then
			echo "${debug_kernel_packages[*]}"
			continue
		fi
		if ! rel=$(kernel_resolve "$spec"); then
			return 1
		fi
		echo "linux-headers-$rel"
	done
}

main() {
	local -a want missing
	local pkgs updated=0

	# Resolving a kernel spec needs apt's package lists; a fresh
	# container has none, so update once and retry.
	if ! pkgs=$(kernel_packages 2>/dev/null); then
		say "refreshing the package lists to resolve KERNELS='${KERNELS:-6.1-cloud}'"
		as_root apt-get update -q || true
		updated=1
		pkgs=$(kernel_packages) || exit 1
	fi
	# shellcheck disable=SC2206 # package names have no spaces
	want=("${base_packages[@]}" $pkgs)
	[[ ${1:-} == --lint ]] && want+=("${lint_packages[@]}")
	[[ ${1:-} == --bench ]] && want+=("${bench_packages[@]}")
	mapfile -t missing < <(missing_packages "${want[@]}")
	((${#missing[@]} == 0)) && return 0

	say "installing: ${missing[*]}"
	if ((EUID != 0)) && ! command -v sudo >/dev/null; then
		say "not root and no sudo: as root, run" >&2
		say "  apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	((updated)) || as_root apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"

	mapfile -t missing < <(missing_packages "${want[@]}")
	if ((${#missing[@]})); then
		say "still missing after apt-get install: ${missing[*]}" >&2
		exit 1
	fi
}

main "$@"
