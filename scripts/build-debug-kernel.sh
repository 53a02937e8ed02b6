#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of the VM tests (kernel spec 6.1-debug, see
# tests/vm/kernels.sh): Debian's linux-source-6.1 configured as
# x86_64_defconfig plus scripts/debug-kernel.config (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, full preemption), built once and cached
# outside the tree.  A second run with the same key is a no-op.
#
#   scripts/build-debug-kernel.sh            build it unless it is cached
#   scripts/build-debug-kernel.sh --dir      print its cache folder (built or not)
#   scripts/build-debug-kernel.sh --release  print its release (uname -r)
#
# The cache folder is $PMCLOG_DEBUG_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/pmclog/debug-kernel)/KEY, KEY being
# <linux-source-6.1 version>-<12 hex digits of the SHA-256 of the config
# fragment, the compiler's version and this script's recipe number>:
#
#   KEY/src/                      the built tree: make -C KEY/src M=DIR modules
#   KEY/root/boot/vmlinuz-REL     laid out as an image package holds them
#   KEY/root/lib/modules/REL/     (modules.builtin, modules.dep, ...)
#   KEY/build.log, KEY/info       the build's output; release, times
#   KEY/.done                     written last: a folder without it is rebuilt
#
# Measured: 106 minutes on 2 cores that other jobs shared (64 CPU-minutes
# of compiling), 2.3 GB of disk; 0.05 s once cached.  There is no PREEMPT_RT
# variant: linux-source-6.1 carries Debian's patches but not its rt
# featureset (debian/patches-rt ships in the source package only), and
# 6.1's arch/x86 does not select ARCH_SUPPORTS_RT, so CONFIG_PREEMPT_RT
# cannot be chosen.  The build checks this and says so if it changes.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
fragment=$repo/scripts/debug-kernel.config
src_pkg=linux-source-6.1
tarball=/usr/src/$src_pkg.tar.xz
# Bump when a change below makes a different kernel from the same inputs.
recipe=1

cache_root=${PMCLOG_DEBUG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmclog/debug-kernel}

say() { echo "build-debug-kernel: $*"; }
die() {
	echo "build-debug-kernel: $*" >&2
	exit 1
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

src_version() {
	dpkg-query -W -f='${Version}' "$src_pkg" 2>/dev/null ||
		die "$src_pkg is not installed: run KERNELS=6.1-debug scripts/install-deps.sh"
}

cache_key() {
	local ver hash
	ver=$(src_version)
	hash=$({
		echo "recipe $recipe"
		gcc --version | head -n 1
		cat "$fragment"
	} | sha256sum | cut -c1-12)
	echo "${ver//[^A-Za-z0-9.+~-]/_}-$hash"
}

# The release the build will print for 'make kernelrelease': the upstream
# part of the package version and the fragment's CONFIG_LOCALVERSION.
release() {
	local ver local_version
	ver=$(src_version)
	local_version=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$fragment")
	echo "${ver%%-*}$local_version"
}

# check_config DOT_CONFIG: every line of the fragment holds in the result.
check_config() {
	local bad
	bad=$(awk '
		FNR == NR {
			if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) want[$0] = 1
			else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) off[$2] = 1
			next
		}
		$0 in want { delete want[$0] }
		/^CONFIG_[A-Za-z0-9_]+=[ym]$/ { sub(/=.*/, ""); if ($0 in off) print "  " $0 " is set" }
		END { for (w in want) print "  wanted " w }
	' "$fragment" "$1")
	[[ -z $bad ]] || die "olddefconfig did not keep the fragment:"$'\n'"$bad"
}

build() {
	local dir=$1 rel t0 t1 src=$1/src log=$1/build.log
	local -a mk=(make -C "$src" -j"$(nproc)")

	t0=$(now)
	rm -rf "$dir"
	mkdir -p "$dir"
	: >"$log"
	say "building $rel_want in $dir (log: $log)"

	say "unpacking $tarball"
	tar -xJf "$tarball" -C "$dir"
	mv "$dir/$src_pkg" "$src"

	if ! grep -qs 'select ARCH_SUPPORTS_RT' "$src/arch/x86/Kconfig"; then
		say "no PREEMPT_RT here: arch/x86 does not select ARCH_SUPPORTS_RT in this source"
	else
		say "note: this source can build PREEMPT_RT; tests/vm knows no rt debug variant yet"
	fi

	say "configuring: x86_64_defconfig + ${fragment#"$repo"/}"
	{
		"${mk[@]}" x86_64_defconfig
		(cd "$src" && scripts/kconfig/merge_config.sh -m .config "$fragment")
		"${mk[@]}" olddefconfig
		# include/config/auto.conf, which kernelrelease reads.
		"${mk[@]}" syncconfig
	} >>"$log" 2>&1 || die "configuration failed; see $log"
	check_config "$src/.config"

	rel=$("${mk[@]}" -s kernelrelease)
	[[ $rel == "$rel_want" ]] || die "the tree calls itself '$rel', not '$rel_want'"

	# 'modules' runs modpost over vmlinux: Module.symvers, which M= builds
	# need to resolve the kernel's exports.
	say "make bzImage modules (about an hour of CPU; follow $log)"
	t1=$(now)
	if ! "${mk[@]}" bzImage modules >>"$log" 2>&1; then
		tail -n 40 "$log" | sed 's/^/  /' >&2
		die "the kernel build failed; see $log"
	fi
	[[ -s $src/Module.symvers ]] || die "the build left no Module.symvers"
	say "compiled in $(elapsed "$t1")s"

	mkdir -p "$dir/root/boot"
	"${mk[@]}" INSTALL_MOD_PATH="$dir/root" modules_install >>"$log" 2>&1 ||
		die "modules_install failed; see $log"
	cp "$src/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$rel"
	cp "$src/System.map" "$dir/root/boot/System.map-$rel"
	cp "$src/.config" "$dir/root/boot/config-$rel"
	# Out-of-tree builds need the tree's headers, scripts, objtool and
	# Module.symvers, not the objects that went into vmlinux.
	find "$src" -name '*.o' ! -path "$src/scripts/*" ! -path "$src/tools/*" -delete

	{
		echo "key $key"
		echo "release $rel"
		echo "source $src_pkg $(src_version)"
		echo "compiler $(gcc --version | head -n 1)"
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) CPUs in $(elapsed "$t0")s"
	} >"$dir/info"
	touch "$dir/.done"
	say "built $rel in $(elapsed "$t0")s: $dir"
}

main() {
	local dir
	key=$(cache_key)
	rel_want=$(release)
	dir=$cache_root/$key
	case ${1:-} in
	--dir) echo "$dir"; return ;;
	--release) echo "$rel_want"; return ;;
	'') ;;
	-h | --help) sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//'; return ;;
	*) die "unknown argument '$1'" ;;
	esac

	[[ -r $tarball ]] || die "no $tarball: run KERNELS=6.1-debug scripts/install-deps.sh"
	# What the build runs, checked before an hour of it rather than after
	# the tarball is unpacked (pahole only matters for BTF, but the
	# configuration asks for it).
	local tool missing=()
	for tool in flex bison pahole bc gcc make; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	[[ -e /usr/include/openssl/ssl.h ]] || missing+=(libssl-dev)
	[[ -e /usr/include/gelf.h ]] || missing+=(libelf-dev)
	((${#missing[@]} == 0)) ||
		die "missing ${missing[*]}: run KERNELS=6.1-debug scripts/install-deps.sh"
	mkdir -p "$cache_root"
	# Two runs (two worktrees) must not build the same key at once.
	exec 9>"$cache_root/.lock-$key"
	if ! flock -n 9; then
		say "another build of $key is running; waiting for it"
		flock 9
	fi
	if [[ -f $dir/.done ]]; then
		say "cached: $rel_want in $dir"
		return
	fi
	build "$dir"
}

main "$@"
