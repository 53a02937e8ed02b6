# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The one place that knows how a kernel spec maps onto Debian packages and
# onto QEMU settings.  Sourced by scripts/install-deps.sh and tests/vm/run.sh.
#
# A spec is SERIES-FLAVOUR:
#
#   6.1-cloud   6.1-amd64   6.1-rt   6.12-cloud   6.12-amd64   6.12-rt
#
# or an exact Debian kernel release (6.1.0-57-cloud-amd64,
# 6.12.118+deb12-cloud-amd64), or 6.1-debug: the debug kernel that
# scripts/build-debug-kernel.sh builds from Debian's linux-source-6.1
# (release 6.1.N-pmclog-debug), with no package behind it.  A spec resolves to the newest release whose
# headers package apt knows, unless PMCLOG_KREL_<SPEC> names one, SPEC upper
# case with '.' and '-' as '_':  PMCLOG_KREL_6_1_CLOUD=6.1.0-56-cloud-amd64.

# Debian's flavour suffix for a spec's flavour word.
kernel_flavour_suffix() {
	case "$1" in
	cloud) echo cloud-amd64 ;;
	amd64) echo amd64 ;;
	rt) echo rt-amd64 ;;
	*) return 1 ;;
	esac
}

# ERE matching the headers packages of a series and flavour.  Debian names
# 6.1 kernels by ABI (6.1.0-57-cloud-amd64) and bookworm's 6.12 backports
# by upstream version (6.12.118+deb12-cloud-amd64).
kernel_headers_regex() {
	local series=$1 suffix=$2
	case "$series" in
	6.1) echo "^linux-headers-6\\.1\\.0-[0-9]+-${suffix}\$" ;;
	6.12) echo "^linux-headers-6\\.12\\.[0-9]+\\+deb12-${suffix}\$" ;;
	*) return 1 ;;
	esac
}

# Name of the environment variable that overrides a spec's release.
kernel_override_var() {
	local v=${1^^}
	v=${v//[.-]/_}
	echo "PMCLOG_KREL_${v//[^A-Z0-9_]/_}"
}

# True when the spec is already an exact release.
kernel_is_release() {
	[[ $1 =~ ^[0-9]+\.[0-9]+(\.0-[0-9]+|\.[0-9]+\+deb[0-9]+)-[a-z0-9-]+$ ]]
}

# apt-cache needs about a second to load its lists here, too slow for a
# no-op 'make deps'.  Resolutions are cached and invalidated whenever the
# package lists change (apt-get update).
kernel_cache_file() {
	echo "${PMCLOG_BUILD:-$(kernel_repo_root)/build}/vm/kernel-releases.cache"
}

kernel_repo_root() {
	(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
}

kernel_lists_stamp() {
	# Newest mtime of apt's package lists; 0 when there are none.
	local f newest=0 t
	for f in /var/lib/apt/lists/*_Packages*; do
		[[ -e $f ]] || continue
		t=$(stat -c %Y "$f")
		((t > newest)) && newest=$t
	done
	echo "$newest"
}

# The debug kernel: a spec, and the release it builds.
kernel_spec_is_debug() { [[ $1 == 6.1-debug ]]; }
kernel_is_debug() { [[ $1 == *-pmclog-debug ]]; }

kernel_debug_script() {
	echo "$(kernel_repo_root)/scripts/build-debug-kernel.sh"
}

# kernel_resolve SPEC: print the exact release for SPEC, or fail with a
# message on stderr.
kernel_resolve() {
	local spec=$1 var series flavour suffix regex stamp cache rel
	local c_spec c_stamp c_rel
	if kernel_spec_is_debug "$spec"; then
		"$(kernel_debug_script)" --release
		return
	fi
	var=$(kernel_override_var "$spec")
	if [[ -n ${!var:-} ]]; then
		echo "${!var}"
		return 0
	fi
	if kernel_is_release "$spec"; then
		echo "$spec"
		return 0
	fi
	series=${spec%%-*}
	flavour=${spec#*-}
	if [[ $series == "$spec" ]] || ! suffix=$(kernel_flavour_suffix "$flavour") ||
		! regex=$(kernel_headers_regex "$series" "$suffix"); then
		echo "kernels: unknown kernel spec '$spec' (try 6.1-cloud, 6.1-amd64, 6.1-rt, 6.12-cloud, 6.12-amd64, 6.12-rt, 6.1-debug)" >&2
		return 1
	fi

	stamp=$(kernel_lists_stamp)
	cache=$(kernel_cache_file)
	if [[ -r $cache ]]; then
		# One line per spec: "<spec> <lists stamp> <release>".
		while read -r c_spec c_stamp c_rel; do
			if [[ $c_spec == "$spec" && $c_stamp == "$stamp" ]]; then
				echo "$c_rel"
				return 0
			fi
		done <"$cache"
	fi

	rel=$(apt-cache pkgnames "linux-headers-$series" 2>/dev/null |
		grep -E "$regex" | sort -V | tail -n 1 || true)
	rel=${rel#linux-headers-}
	if [[ -z $rel ]]; then
		echo "kernels: apt knows no headers package for '$spec' ($regex); run 'apt-get update'," >&2
		echo "         or set $var to an exact release" >&2
		return 1
	fi
	mkdir -p "$(dirname "$cache")"
	{
		[[ -r $cache ]] && grep -v "^$spec " "$cache" || true
		echo "$spec $stamp $rel"
	} >"$cache.tmp" && mv "$cache.tmp" "$cache"
	echo "$rel"
}

# kernel_build_dir REL: the tree that out-of-tree modules for REL build
# against: the headers package's, or the debug kernel's built tree.
kernel_build_dir() {
	if kernel_is_debug "$1"; then
		echo "$("$(kernel_debug_script)" --dir)/src"
	else
		echo "/usr/src/linux-headers-$1"
	fi
}

# Image packages that hold a release's vmlinuz and modules, in order of
# preference: 6.1 has a signed package and an -unsigned one, bookworm's
# 6.12 only the -unsigned one.
kernel_image_packages() {
	echo "linux-image-$1 linux-image-$1-unsigned"
}

# Extra QEMU arguments and kernel command line words a release needs.
kernel_qemu_args() {
	case "$1" in
	# 6.12 double-faults in the slab allocator under QEMU 7.2 TCG with
	# the default CPU model and with -cpu max; without CMPXCHG16B it runs.
	6.12.*) echo "-cpu max,-cx16" ;;
	esac
}

# On every kernel, the sched_switch tracepoint held from boot.  QEMU 7.2's
# multi-threaded TCG can miss a write to code that another vCPU runs:
# after text_poke_bp() rewrites an instruction, that vCPU may go on
# executing its stale translation, int3 included.  The int3 handler then
# finds no int3 in memory and returns to it, for ever: read through
# QEMU's gdbstub on 6.1-rt, CPU 1 looping in the int3 handler from
# __schedule+0x1d3 with its runqueue locked and CPU 0 spinning on that
# lock (92-procstorm, at insmod); "Oops: int3" in __schedule() on
# 6.12-rt (90-churn, when the probe came and went with each recording).
# The module's sched_switch probe would be that tracepoint's first, and
# registering it flips a static key and a static call in __schedule(),
# which both vCPUs run all the time.  Enabling the sched:sched_switch
# event at boot, before the second CPU is up, registers two probes (the
# event's, and ftrace's comm recording); a third changes neither, so
# nothing in __schedule() is rewritten while the tests run.  /init turns
# tracing off: nothing is recorded.  The module's kprobes are rewritten
# at each insmod and rmmod too, which hangs the same way when their
# functions run on the other vCPU (a loop of insmod and rmmod beside an
# exec loop did, at setup_new_exec): scenarios load the module while the
# machine is quiet.  Real CPUs, and KVM guests, see their own code
# writes; this is for TCG.
kernel_cmdline_extra() {
	echo "trace_event=sched:sched_switch"
	case "$1" in
	# Every KASAN report, not only the first of the boot.  The debug
	# kernel's vCPUs are slow enough for the boot's TSC sync check to
	# call QEMU's TSC (one host clock for all vCPUs) unsynchronized; then
	# the clock is HPET, which the vDSO cannot read: every clock_gettime()
	# becomes a syscall, and user-mode workloads get kernel samples.
	*-pmclog-debug) echo "kasan_multi_shot tsc=reliable" ;;
	# The rt kernel's irq debugging disables interrupt lines it thinks
	# are stuck ("irq N: nobody cared") under TCG's slow delivery.
	*-rt-*) echo "noirqdebug" ;;
	esac
}

# Seconds QEMU may take to reach /init before the run is declared dead:
# cloud kernels get there in 2.4-3.4 s, generic and rt in 5-6 s, on an
# idle 2-core host.  Generous, because the host is often busy compiling.
kernel_boot_timeout() {
	case "$1" in
	*-cloud-*) echo 60 ;;
	*-pmclog-debug) echo 240 ;;
	*) echo 120 ;;
	esac
}

# How many times the scenarios' "# timeout:" a release gets: KASAN,
# lockdep and kmemleak make the debug kernel's guest about 2x slower
# (3x, for a busy host).
kernel_time_factor() {
	case "$1" in
	*-pmclog-debug) echo 3 ;;
	*) echo 1 ;;
	esac
}
