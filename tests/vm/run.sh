#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# VM tests: for each kernel, fetch its image, build the module against its
# headers, pack an initramfs (busybox, module, pmclog, workloads,
# scenarios), boot it once under QEMU and judge the run from the console.
#
#   tests/vm/run.sh [--kernels "6.1-cloud 6.12-cloud"] [--only REGEX] [-v]
#   tests/vm/run.sh --kernels 6.1-cloud --demo
#
# Output is TAP: "ok N - <release>: <scenario>: <what>", then
# "N passed, N failed" alone on a line; exit status 1 on any failure.
# Everything made goes under build/vm/:
#
#   pkgs/                      downloaded kernel image packages (cached)
#   <release>/image/           the unpacked package (vmlinuz, modules)
#   <release>/src/             the snapshot the module was built from
#   <release>/pmclog.ko        the module built for that release
#   <release>/initramfs-*/     the initramfs tree, and initrd-*.cpio
#   results/<release>/         console.log, and the VM's /out: one folder
#                              per scenario (logs, dumps, tap.txt), dmesg
#
# Knobs (environment): PMCLOG_KREL_<SPEC> pins a release (see kernels.sh);
# PMCLOG_VM_KO=path.ko boots that module instead of building one (for
# working on the harness itself); PMCLOG_VM_BOOTS=N repeats the boot N
# times per kernel (to measure flakiness); PMCLOG_VM_SCENARIO_DIR=DIR
# boots DIR's scenarios instead of tests/vm/scenarios, and
# PMCLOG_VM_EXTRA="FILE ..." puts each file (an ELF with its shared
# libraries) in /opt/extra/ of the initramfs (make bench: tests/bench),
# PMCLOG_VM_CMDLINE="..." adds words to the kernel's command line, and
# PMCLOG_VM_QEMU="..." words to QEMU's (make bench: -icount).
set -euo pipefail
# A harness that dies quietly would look like a short, passing run.
trap 'echo "run.sh: internal error: line $LINENO: $BASH_COMMAND (status $?)" >&2' ERR

repo=$(cd "$(dirname "$0")/../.." && pwd)
here=$repo/tests/vm
scen_dir=${PMCLOG_VM_SCENARIO_DIR:-$here/scenarios}
# shellcheck source=kernels.sh
. "$here/kernels.sh"

build=${PMCLOG_BUILD:-$repo/build}
vmdir=$build/vm
kernels=${KERNELS:-6.1-cloud}
mode=check
only=
verbose=0

tap_n=0
n_pass=0
n_fail=0
n_skip=0

usage() {
	sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# ------------------------------------------------------------------
# Output: TAP on stdout; everything else as "# " comments.

note() { echo "# $*"; }
die() {
	echo "run.sh: $*" >&2
	exit 2
}

tap() {
	# tap ok|"not ok" DESCRIPTION
	tap_n=$((tap_n + 1))
	echo "$1 $tap_n - $2"
	if [[ $1 == ok ]]; then
		n_pass=$((n_pass + 1))
		[[ $2 == *"# SKIP"* ]] && n_skip=$((n_skip + 1))
	else
		n_fail=$((n_fail + 1))
	fi
	return 0
}

# Indent a command's output as TAP comments, keeping its exit status.
commented() {
	local rc=0
	"$@" 2>&1 | sed -u 's/^/#   /' || rc=$?
	((rc == 0)) && rc=${PIPESTATUS[0]}
	return "$rc"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ------------------------------------------------------------------
# Kernel image

# cached_image_deb REL: the newest downloaded image package for REL.
cached_image_deb() {
	local p
	for p in $(kernel_image_packages "$1"); do
		find "$vmdir/pkgs" -maxdepth 1 -name "${p}_*.deb"
	done | sort -V | tail -n 1
}

# fetch_debug_kernel REL: build the debug kernel unless it is cached
# (scripts/build-debug-kernel.sh); build/vm/REL/image is a link to its
# root, laid out as an image package's.
fetch_debug_kernel() {
	local rel=$1 img=$vmdir/$1/image script dir
	script=$(kernel_debug_script)
	commented "$script" || return 1
	dir=$("$script" --dir)
	rm -rf "$img"
	ln -s "$dir/root" "$img"
	[[ -f $img/boot/vmlinuz-$rel ]]
}

# fetch_kernel REL: unpack REL's image package into build/vm/REL/image.
fetch_kernel() {
	local rel=$1 pkgdir=$vmdir/pkgs img=$vmdir/$1/image deb p
	if kernel_is_debug "$rel"; then
		fetch_debug_kernel "$rel"
		return
	fi
	mkdir -p "$pkgdir"
	deb=$(cached_image_deb "$rel")
	if [[ -z $deb ]]; then
		# As root, apt would fall back from its _apt sandbox user (who
		# may not reach build/) with a warning: say so up front.
		local -a sandbox=()
		((EUID != 0)) || sandbox=(-o APT::Sandbox::User=root)
		for p in $(kernel_image_packages "$rel"); do
			# Only a package with a candidate version can be downloaded.
			[[ $(apt-cache policy "$p" 2>/dev/null) == *"Candidate: "[0-9]* ]] || continue
			note "downloading $p"
			(cd "$pkgdir" && commented apt-get download -q "${sandbox[@]}" "$p") && break
		done
		deb=$(cached_image_deb "$rel")
		if [[ -z $deb ]]; then
			echo "run.sh: cannot download any of: $(kernel_image_packages "$rel") (apt-get update? network?)" >&2
			return 1
		fi
	fi
	if [[ ! -e $img/.from-$(basename "$deb") ]]; then
		rm -rf "$img"
		mkdir -p "$img"
		# Unpacking the data member only: no maintainer scripts run.
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$img" || return 1
		# The package ships no modules.dep (depmod makes it at install).
		depmod -b "$img" "$rel" || return 1
		touch "$img/.from-$(basename "$deb")"
	fi
	[[ -f $img/boot/vmlinuz-$rel ]]
}

# disk_modules REL: the modules the virtio disk needs, in load order,
# as paths relative to the release's module folder.  Built-in ones are
# left out.
disk_modules() {
	local moddir=$vmdir/$1/image/lib/modules/$1
	awk -v want="virtio_pci virtio_blk" '
		function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?$/, "", p); gsub(/-/, "_", p); return p }
		function visit(m,   i, n, d) {
			if (m in done) return
			done[m] = 1
			n = split(deps[m], d, " ")
			for (i = 1; i <= n; i++) visit(d[i])
			print m
		}
		FNR == 1 { file++ }
		file == 1 { builtin[base($1)] = 1; next }
		{
			mod = $1; sub(/:$/, "", mod)
			path[base(mod)] = mod
			deps[mod] = ""
			for (i = 2; i <= NF; i++) deps[mod] = deps[mod] " " $i
		}
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) {
				if (w[i] in builtin) continue
				if (!(w[i] in path)) { print "missing module " w[i] > "/dev/stderr"; exit 1 }
				visit(path[w[i]])
			}
		}' "$moddir/modules.builtin" "$moddir/modules.dep"
}

# ------------------------------------------------------------------
# Builds

# build_module REL: build/vm/REL/pmclog.ko, built against REL's headers
# from a snapshot of the working tree, so that a build for one kernel
# never races with one for another (or with 'make module') in the tree.
build_module() {
	local rel=$1 kdir=$vmdir/$1 hdr src=$vmdir/$1/src
	hdr=$(kernel_build_dir "$rel")
	rm -f "$kdir/pmclog.ko"
	if [[ -n ${PMCLOG_VM_KO:-} ]]; then
		note "PMCLOG_VM_KO: using $PMCLOG_VM_KO instead of building the module"
		cp "$PMCLOG_VM_KO" "$kdir/pmclog.ko"
		return
	fi
	if [[ ! -d $hdr ]]; then
		echo "run.sh: no kernel tree at $hdr: run scripts/install-deps.sh (KERNELS=...)" >&2
		return 1
	fi
	rm -rf "$src"
	mkdir -p "$src"
	# Tracked and untracked-but-not-ignored files: what 'git status' shows.
	(cd "$repo" && git ls-files -z -co --exclude-standard) |
		(cd "$repo" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -x -C "$src"
	note "make -C $hdr M=$src W=1 modules"
	commented make -C "$hdr" M="$src" W=1 -j"$(nproc)" modules || return 1
	[[ -f $src/kmod/pmclog.ko ]] || {
		echo "run.sh: the build made no kmod/pmclog.ko" >&2
		return 1
	}
	cp "$src/kmod/pmclog.ko" "$kdir/pmclog.ko"
}

# build_testmods REL: the test modules of tests/kmod/ (objects for the
# scenarios to load, e.g. pmclog_testmod.ko), from build_module's snapshot;
# each subfolder with a Kbuild is a build of its own (rebuilt/: the same
# module built again, which one build cannot hold), its modules kept in a
# subfolder of that name.
build_testmods() {
	local rel=$1 kdir=$vmdir/$1 hdr src=$vmdir/$1/src/tests/kmod d ko
	hdr=$(kernel_build_dir "$rel")
	rm -rf "$kdir/testmods"
	[[ -f $src/Kbuild ]] || return 0
	for d in "$src" "$src"/*/; do
		d=${d%/}
		[[ -f $d/Kbuild ]] || continue
		note "make -C $hdr M=$d W=1 modules"
		commented make -C "$hdr" M="$d" W=1 -j"$(nproc)" modules || return 1
		mkdir -p "$kdir/testmods/${d#"$src"}"
		for ko in "$d"/*.ko; do
			[[ -f $ko ]] && cp "$ko" "$kdir/testmods/${d#"$src"}/"
		done
	done
	return 0
}

tool_bin=$repo/tools/pmclog/pmclog

build_userland() {
	if [[ -f $repo/tools/pmclog/Makefile ]]; then
		if commented make -C "$repo/tools/pmclog"; then
			tap ok "host: build: pmclog tool"
		else
			tap "not ok" "host: build: pmclog tool"
		fi
	else
		tap "not ok" "host: build: pmclog tool (no tools/pmclog/Makefile yet)"
	fi
	if commented make -C "$repo/tests/workloads"; then
		tap ok "host: build: test workloads"
	else
		tap "not ok" "host: build: test workloads"
	fi
}

# ------------------------------------------------------------------
# Initramfs

# put SRC DST: copy a file into the tree.  DST is removed first: if it
# were a link (a busybox applet), cp would write through it.
put() {
	mkdir -p "$(dirname "$2")"
	rm -f "$2"
	cp -L "$1" "$2"
}

# note_buildid FILE PATH TREE: "PATH HEX" in TREE's list of build-ids,
# if FILE has one.
note_buildid() {
	readelf -n "$1" 2>/dev/null |
		awk -v p="$2" '$1 == "Build" && $2 == "ID:" { print p, $3; exit }' \
			>>"$3/lib/vmtest/buildids"
}

# put_elf_with_libs BIN TREE DST: BIN and the shared libraries it loads,
# at the paths the loader will look for them.
put_elf_with_libs() {
	local bin=$1 tree=$2 lib
	put "$bin" "$tree$3"
	# ldd prints "name => /path (addr)" and "/lib64/ld-linux-x86-64.so.2 (addr)";
	# a static binary makes it fail, which is fine.
	for lib in $(ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		put "$lib" "$tree$lib"
	done
}

# build_initramfs REL MODE: build/vm/REL/initrd-MODE.cpio
build_initramfs() {
	local rel=$1 mode=$2 kdir=$vmdir/$1 tree=$vmdir/$1/initramfs-$2 a f ko moddir
	moddir=$kdir/image/lib/modules/$rel
	rm -rf "$tree"
	mkdir -p "$tree"/{bin,dev,proc,sys,run,tmp,out,etc,root,scenarios,lib/modules/disk,lib/vmtest}
	# Merged /usr, with relative links: nothing may point at the host.
	ln -s bin "$tree/sbin"
	mkdir -p "$tree/usr"
	ln -s ../bin "$tree/usr/bin"
	ln -s ../bin "$tree/usr/sbin"

	if ldd /bin/busybox >/dev/null 2>&1; then
		echo "run.sh: /bin/busybox is dynamically linked: install busybox-static" >&2
		return 1
	fi
	put /bin/busybox "$tree/bin/busybox"
	# Applet links, relative, never 'busybox' itself (it would loop).
	for a in $("$tree/bin/busybox" --list); do
		[[ $a == busybox ]] || ln -s busybox "$tree/bin/$a"
	done
	# The kernel opens /dev/console for /init before devtmpfs exists.
	mknod -m 600 "$tree/dev/console" c 5 1 2>/dev/null || true
	echo 'root:x:0:0:root:/root:/bin/sh' >"$tree/etc/passwd"
	echo 'root:x:0:' >"$tree/etc/group"

	# Every workload: programs in /bin (with any libraries they link),
	# shared objects they dlopen in /lib/workloads.  Their build-ids and
	# the test modules', as the host's readelf sees them, in
	# /lib/vmtest/buildids ("PATH HEX" lines), for the scenarios to
	# check the log's BUILDIDs against.
	mkdir -p "$tree/lib/vmtest"
	: >"$tree/lib/vmtest/buildids"
	for f in "$repo"/tests/workloads/bin/*; do
		[[ -f $f ]] || continue
		case $f in
		*.so) put "$f" "$tree/lib/workloads/$(basename "$f")"
			note_buildid "$f" "/lib/workloads/$(basename "$f")" "$tree" ;;
		*) [[ -x $f ]] || continue
			put_elf_with_libs "$f" "$tree" "/bin/$(basename "$f")"
			note_buildid "$f" "/bin/$(basename "$f")" "$tree" ;;
		esac
	done
	[[ -x $tool_bin ]] && put_elf_with_libs "$tool_bin" "$tree" /bin/pmclog
	if [[ -f $kdir/pmclog.ko ]]; then
		put "$kdir/pmclog.ko" "$tree/lib/modules/pmclog.ko"
		note_buildid "$kdir/pmclog.ko" pmclog "$tree"
	fi
	for f in "$kdir"/testmods/*.ko "$kdir"/testmods/*/*.ko; do
		[[ -f $f ]] || continue
		put "$f" "$tree/lib/modules/${f#"$kdir"/testmods/}"
		note_buildid "$f" "/lib/modules/${f#"$kdir"/testmods/}" "$tree"
	done

	# Debian's cloud kernel has virtio_blk and virtio_pci as modules.
	local order
	order=$(disk_modules "$rel") || return 1
	: >"$tree/lib/modules/disk/order"
	for ko in $order; do
		f=$(basename "$ko")
		case $f in
		*.ko.xz) xz -dc "$moddir/$ko" >"$tree/lib/modules/disk/${f%.xz}" ;;
		*.ko.zst) zstd -qdc "$moddir/$ko" >"$tree/lib/modules/disk/${f%.zst}" ;;
		*) put "$moddir/$ko" "$tree/lib/modules/disk/$f" ;;
		esac
		echo "${f%.ko*}.ko" >>"$tree/lib/modules/disk/order"
	done

	put "$here/init" "$tree/init"
	chmod 755 "$tree/init"
	put "$here/lib.sh" "$tree/lib/vmtest/lib.sh"
	put "$here/demo.sh" "$tree/demo.sh"
	if [[ $mode == check ]]; then
		for f in "${scenarios[@]}"; do
			put "$scen_dir/$f.sh" "$tree/scenarios/$f.sh"
		done
		# Every scenario, also those --only left out, for the ones that
		# run others again (lib.sh's run_with_bpf).
		for f in "$scen_dir"/*.sh; do
			put "$f" "$tree/lib/vmtest/scenarios/$(basename "$f")"
		done
	fi
	for f in ${PMCLOG_VM_EXTRA:-}; do
		put_elf_with_libs "$f" "$tree" "/opt/extra/$(basename "$f")"
	done
	# The regex goes in too: lib.sh's kernel_log_clean judges one
	# scenario's part of the kernel log as the host judges the boot's.
	printf "MODE=%s\nSCENARIO_TIMEOUT=%s\nPMCLOG_TIME_FACTOR=%s\nKERNEL_TROUBLE_REGEX='%s'\n" \
		"$mode" 120 "$(kernel_time_factor "$rel")" "$kernel_trouble_regex" \
		>"$tree/etc/vmtest.conf"

	# Uncompressed: the kernel would spend longer inflating it under TCG
	# than QEMU spends loading it.
	(cd "$tree" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner 0:0 --quiet) >"$kdir/initrd-$mode.cpio"
}

# ------------------------------------------------------------------
# Boot and verdict

scenario_timeout() {
	local t
	t=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$scen_dir/$1.sh" | head -n 1)
	echo "${t:-120}"
}

# console_log REL MODE: where the boot's console goes.
console_log() {
	if [[ $2 == demo ]]; then
		echo "$vmdir/results/$1/console-demo.log"
	else
		echo "$vmdir/results/$1/console.log"
	fi
}

# boot REL MODE: run the VM; console in results/REL/console[-demo].log.
# Sets boot_secs (QEMU start to the canary, or "-") and vm_secs.
boot() {
	local rel=$1 mode=$2 kdir=$vmdir/$1 res=$vmdir/results/$1 console limit boot_limit
	local qpid t0 extra cmdline s factor tailpid=
	console=$(console_log "$rel" "$mode")
	boot_limit=$(kernel_boot_timeout "$rel")
	factor=$(kernel_time_factor "$rel")
	limit=$boot_limit
	if [[ $mode == check ]]; then
		for s in "${scenarios[@]}"; do
			limit=$((limit + $(scenario_timeout "$s") * factor + 5))
		done
	else
		limit=$((limit + 120 * factor))
	fi
	# Archiving, and on a debug kernel the kmemleak scans.
	limit=$((limit + 30 * factor))

	: >"$console"
	# A fresh, zeroed disk: a stale archive must never pass for this run's.
	rm -f "$kdir/out.img"
	truncate -s 512M "$kdir/out.img"

	cmdline="console=ttyS0 panic=-1 quiet $(kernel_cmdline_extra "$rel")${PMCLOG_VM_CMDLINE:+ $PMCLOG_VM_CMDLINE}"
	# shellcheck disable=SC2207
	extra=($(kernel_qemu_args "$rel") ${PMCLOG_VM_QEMU:-})
	t0=$(now)
	timeout -k 10 "$limit" qemu-system-x86_64 -accel tcg -m 1G -smp 2 \
		-nographic -no-reboot -nic none "${extra[@]}" \
		-kernel "$kdir/image/boot/vmlinuz-$rel" -initrd "$kdir/initrd-$mode.cpio" \
		-append "$cmdline" \
		-drive "file=$kdir/out.img,format=raw,if=virtio" \
		</dev/null >"$console" 2>&1 &
	qpid=$!
	if ((verbose)); then
		tail -n +1 -f --pid="$qpid" "$console" &
		tailpid=$!
	fi

	boot_secs=-
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -aq 'PMCLOG-VM: canary' "$console"; then
			boot_secs=$(elapsed "$t0")
			break
		fi
		if (($(date +%s) - ${t0%.*} > boot_limit)); then
			note "$rel: no canary after ${boot_limit}s: stopping QEMU"
			kill "$qpid"
			break
		fi
		sleep 0.2
	done
	note "$rel: QEMU running (limit ${limit}s), boot to /init: ${boot_secs}s"
	qemu_rc=0
	wait "$qpid" || qemu_rc=$?
	vm_secs=$(elapsed "$t0")
	[[ -n $tailpid ]] && wait "$tailpid" 2>/dev/null
	((qemu_rc == 124 || qemu_rc == 137)) && note "$rel: QEMU killed after ${limit}s (hung?)"
	return 0
}

# The console without CRs and escape sequences.
clean_console() {
	sed -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[()][A-Z0-9]//g' "$1"
}

# Kernel log lines that fail a run.  Plain "WARNING:" would match harmless
# boot notices (RETBleed, SRSO): match what WARN_ON prints, and what the
# debug kernel's checkers print (KASAN and DEBUG_ATOMIC_SLEEP say "BUG:";
# lockdep, debugobjects, DEBUG_LIST and kmemleak have their own words).
kernel_trouble_regex='WARNING: CPU: [0-9]+ PID: [0-9]+|cut here|Oops:|BUG:|kernel BUG at|Kernel panic|soft lockup|hard LOCKUP|rcu_sched self-detected stall|rcu: INFO|general protection fault|Unable to handle kernel|UBSAN:|Call Trace:'
kernel_trouble_regex+='|possible circular locking dependency|possible recursive locking|inconsistent lock state|suspicious RCU usage|possible irq lock inversion|lock order detected|bad unlock balance|held lock freed|lock held when returning|ODEBUG:|list_(add|del) corruption|kmemleak: Kernel memory leak detector disabled|kmemleak: .*MEM_POOL_SIZE'

# splats CONSOLE [DMESG]: every splat in the kernel log, in full, with the
# scenario it came during: from its first line (one kernel_trouble_regex
# matches) to its end: a KASAN report's closing '====' rule, else the end
# of its stack trace (</TASK>, and an '---[ end trace' right after it);
# at most 300 lines.  The console comes first (it knows the scenario);
# from the dmesg that came back, only what the console missed (printk
# lines below the console's level before /init raised it).  Lines of the
# scenarios' own output inside a splat are left out.
splats() {
	awk -v re="$kernel_trouble_regex" -v console_file="$1" '
		function finish() {
			if (!open) return
			open = 0
			if (key in seen) return
			seen[key] = 1
			printf "--- splat %d, during %s\n%s", ++n, where, text
		}
		FNR == 1 { finish(); sc = "boot"; console = (FILENAME == console_file) }
		console && /PMCLOG-VM: scenario [^ ]+ begin/ {
			finish(); sc = $0; sub(/.*PMCLOG-VM: scenario /, "", sc); sub(/ .*/, "", sc); next
		}
		console && /PMCLOG-VM: kmemleak begin/ { finish(); sc = "the kmemleak scan"; next }
		console && /^# |^(not )?ok [0-9]+ - |PMCLOG-VM: / { next }
		open && ending {
			ending = 0
			if ($0 ~ /---\[ end trace/) { text = text $0 "\n"; finish(); next }
			finish()
		}
		open {
			text = text $0 "\n"
			if (++len >= 300) { finish(); next }
			if (kasan ? $0 ~ /^(\[ *[0-9.]+\] )?=+$/ : $0 ~ /<\/TASK>|---\[ end trace/) {
				if (kasan || $0 ~ /end trace/) finish(); else ending = 1
			}
			next
		}
		$0 ~ re {
			open = 1; ending = 0; len = 1; text = $0 "\n"; key = $0
			kasan = ($0 ~ /BUG: KASAN/)
			where = console ? sc : "boot (dmesg only)"
		}
		END { finish() }' "$@"
}

# Taint flags by bit (Documentation/admin-guide/tainted-kernels.rst).
taint_letters=PFSRMBUDAWCIOELKXTN

taint_flags() {
	local v=$1 i out=
	for ((i = 0; i < ${#taint_letters}; i++)); do
		((v >> i & 1)) && out+=${taint_letters:i:1}
	done
	echo "${out:-none}"
}

# verdict REL MODE: TAP lines for one boot.
verdict() {
	local rel=$1 mode=$2 res=$vmdir/results/$1 console txt line st rest s t n
	console=$(console_log "$rel" "$mode")
	txt=${console%.log}.txt
	clean_console "$console" >"$txt"

	if grep -aq 'PMCLOG-VM: canary' "$txt"; then
		tap ok "$rel: vm: reached /init in ${boot_secs}s"
		# kernels.sh (kernel_cmdline_extra) says why.
		if grep -aq 'PMCLOG-VM: sched:sched_switch is not held' "$txt"; then
			tap "not ok" "$rel: vm: the sched_switch tracepoint is held from boot"
		else
			tap ok "$rel: vm: the sched_switch tracepoint is held from boot"
		fi
	else
		tap "not ok" "$rel: vm: reached /init"
		tail -n 30 "$txt" | sed 's/^/#   /'
	fi

	# TAP from the VM, matched anywhere on a line: kernel messages can
	# share a line with it.
	# Their diagnostics ("# scenario: ...") follow in console order.
	while IFS= read -r line; do
		if [[ $line == "# "* ]]; then
			echo "#   ${line#\# }"
			continue
		fi
		st=${line%% [0-9]*}
		rest=${line#* - }
		tap "$st" "$rel: $rest"
	done < <(grep -aoE '(not ok|ok) [0-9]+ - [0-9a-z][0-9a-z_-]*: .*|^# [0-9a-z][0-9a-z_-]*: .*' "$txt")

	if [[ $mode == check ]]; then
		for s in "${scenarios[@]}"; do
			grep -aq "PMCLOG-VM: scenario $s end" "$txt" ||
				tap "not ok" "$rel: $s: finished (the VM hung or died during it)"
		done
	else
		grep -aq 'PMCLOG-VM: demo end rc=0' "$txt" || tap "not ok" "$rel: demo: finished"
	fi

	# Kernel trouble, on the console and in the dmesg that came back.
	# The scenarios' own lines are left out of the console (a tool's
	# message quoted in a diagnostic is no kernel trouble); dmesg has
	# every kernel line anyway.
	local splat_file=$res/splats-$mode.txt nsplat
	local -a logs=("$txt")
	[[ -f $res/dmesg-$mode.txt ]] && logs+=("$res/dmesg-$mode.txt")
	splats "${logs[@]}" >"$splat_file"
	nsplat=$(grep -c '^--- splat ' "$splat_file" || true)
	if ((nsplat == 0)); then
		tap ok "$rel: vm: kernel log has no oops, WARN, BUG, lockup, stall or checker report"
	else
		tap "not ok" "$rel: vm: kernel log has no oops, WARN, BUG, lockup, stall or checker report"
		echo "#   $nsplat splats (all of them in ${splat_file#"$repo"/}):"
		awk '/^--- splat / { getline l; sub(/^--- /, ""); print "#   - " $0 ": " l }' "$splat_file"
		head -n 400 "$splat_file" | sed 's/^/#   /'
	fi
	if kernel_is_debug "$rel"; then
		verdict_debug "$rel" "$mode" "$txt"
	fi

	t=$(grep -aoE 'PMCLOG-VM: tainted=[0-9]+' "$txt" | tail -n 1 | sed 's/.*=//' || true)
	if [[ -z $t ]]; then
		tap "not ok" "$rel: vm: taint flags reported"
	elif ((t & ~((1 << 12) | (1 << 13)))); then
		tap "not ok" "$rel: vm: kernel taint only O/E (tainted=$t: $(taint_flags "$t"))"
	else
		tap ok "$rel: vm: kernel taint only O/E (tainted=$t: $(taint_flags "$t"))"
	fi

	# A task that SIGKILL cannot end is stuck in the kernel (init's
	# reap_strays waits for each one it kills).
	local stuck
	stuck=$(grep -aoE 'PMCLOG-VM: [^ ]+: leftover [0-9]+ survives SIGKILL.*' "$txt" || true)
	if [[ -z $stuck ]]; then
		tap ok "$rel: vm: every leftover task ended on SIGKILL"
	else
		tap "not ok" "$rel: vm: every leftover task ended on SIGKILL"
		echo "${stuck//PMCLOG-VM: /#   }"
	fi

	n=$(find "$res" -mindepth 1 -newer "$console.start" -type f 2>/dev/null | wc -l || true)
	if grep -aq 'PMCLOG-VM: archived rc=0' "$txt" && [[ -f $res/dmesg-$mode.txt ]]; then
		tap ok "$rel: vm: artefacts came back ($n files in ${res#"$repo"/})"
	else
		tap "not ok" "$rel: vm: artefacts came back on the virtio disk"
	fi
	if grep -aq 'PMCLOG-VM: done' "$txt"; then
		tap ok "$rel: vm: powered off after the last step"
	else
		tap "not ok" "$rel: vm: powered off after the last step (QEMU status $qemu_rc)"
	fi
}

# verdict_debug REL MODE TXT: what only a debug kernel can say: kmemleak's
# report after the last rmmod, and that the checkers were on throughout.
verdict_debug() {
	local rel=$1 mode=$2 txt=$3 res=$vmdir/results/$1 end n secs dl
	end=$(grep -ao 'PMCLOG-VM: kmemleak end suspects=[0-9]* secs=[0-9.]*' "$txt" | tail -n 1 || true)
	if [[ -z $end ]]; then
		tap "not ok" "$rel: vm: kmemleak scanned after the last rmmod (no report came back)"
	else
		n=${end#*suspects=}
		n=${n%% *}
		secs=${end##*secs=}
		if ((n == 0)); then
			tap ok "$rel: vm: kmemleak: no unreferenced object after the last rmmod (scans ${secs}s)"
		else
			tap "not ok" "$rel: vm: kmemleak: no unreferenced object after the last rmmod"
			echo "#   $n suspects (all of them in ${res#"$repo"/}/kmemleak.txt):"
			sed -n '/PMCLOG-VM: kmemleak begin/,/PMCLOG-VM: kmemleak end/p' "$txt" |
				grep -av 'PMCLOG-VM: ' | head -n 200 | sed 's/^/#   /'
		fi
	fi
	dl=$(grep -ao 'PMCLOG-VM: debug_locks=[0-9]*' "$txt" | tail -n 1 | sed 's/.*=//' || true)
	if grep -aq 'KernelAddressSanitizer initialized' "$txt" "$res/dmesg-$mode.txt" 2>/dev/null &&
		[[ $dl == 1 ]]; then
		tap ok "$rel: vm: KASAN was on, lockdep still on at the end (debug_locks=1)"
	else
		tap "not ok" "$rel: vm: KASAN was on, lockdep still on at the end (debug_locks=${dl:-?})"
	fi
}

# fetch_results REL MODE: the VM's /out into results/REL.
fetch_results() {
	local rel=$1 res=$vmdir/results/$1
	# tar stops at the archive's end; an untouched (zero) disk reads as
	# an empty archive.
	tar -xf "$vmdir/$rel/out.img" -C "$res" 2>"$res/untar.err" || true
}

# ------------------------------------------------------------------

run_kernel() {
	local spec=$1 rel t0 res
	t0=$(now)
	if ! rel=$(kernel_resolve "$spec"); then
		tap "not ok" "$spec: resolve the kernel release"
		return
	fi
	note "== $spec: $rel"
	res=$vmdir/results/$rel
	mkdir -p "$vmdir/$rel" "$res"
	if ! fetch_kernel "$rel"; then
		if kernel_is_debug "$rel"; then
			tap "not ok" "$rel: build the debug kernel (scripts/build-debug-kernel.sh)"
		else
			tap "not ok" "$rel: fetch and unpack linux-image-$rel"
		fi
		return
	fi
	if build_module "$rel"; then
		tap ok "$rel: build: pmclog.ko (W=1)"
	else
		# Boot anyway: the scenarios then report what they cannot do,
		# which proves the harness and shows what else works.
		tap "not ok" "$rel: build: pmclog.ko (W=1)"
	fi
	if [[ -z ${PMCLOG_VM_KO:-} && -f $repo/tests/kmod/Kbuild ]]; then
		if build_testmods "$rel"; then
			tap ok "$rel: build: test modules of tests/kmod (W=1)"
		else
			tap "not ok" "$rel: build: test modules of tests/kmod (W=1)"
		fi
	fi
	if ! build_initramfs "$rel" "$mode"; then
		tap "not ok" "$rel: build the initramfs"
		return
	fi
	note "$rel: initramfs $(du -h "$vmdir/$rel/initrd-$mode.cpio" | cut -f1), prepared in $(elapsed "$t0")s"

	local i boots=${PMCLOG_VM_BOOTS:-1}
	for ((i = 1; i <= boots; i++)); do
		if [[ $mode == check ]]; then
			# Keep the demo's results; everything else is this run's.
			find "$res" -mindepth 1 -maxdepth 1 ! -name 'demo*' ! -name 'console-demo.*' \
				-exec rm -rf {} +
		else
			rm -rf "$res/demo" "$res/console-demo.log" "$res/dmesg-demo.txt"
		fi
		# Marks what this boot brought back (files newer than it).
		touch "$(console_log "$rel" "$mode").start"
		boot "$rel" "$mode"
		fetch_results "$rel" "$mode"
		verdict "$rel" "$mode"
		note "$rel: boot $i/$boots: to /init ${boot_secs}s, VM ${vm_secs}s; kernel total $(elapsed "$t0")s"
	done
	if [[ $mode == demo ]]; then
		if [[ -f $res/demo/summary.txt ]]; then
			echo
			cat "$res/demo/summary.txt"
			echo
			note "demo artefacts: ${res#"$repo"/}/demo/"
		else
			note "no demo summary came back; see $(console_log "$rel" "$mode")"
		fi
	fi
}

main() {
	while (($#)); do
		case $1 in
		--kernels) kernels=$2; shift 2 ;;
		--kernels=*) kernels=${1#*=}; shift ;;
		--demo) mode=demo; shift ;;
		--only) only=$2; shift 2 ;;
		--only=*) only=${1#*=}; shift ;;
		-v | --verbose) verbose=1; shift ;;
		-h | --help) usage 0 ;;
		*) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
		esac
	done
	[[ -n $kernels ]] || die "--kernels is empty"

	scenarios=()
	local f name
	for f in "$scen_dir"/[0-9][0-9]-*.sh; do
		name=$(basename "$f" .sh)
		[[ -z $only ]] || grep -qE -- "$only" <<<"$name" || continue
		scenarios+=("$name")
	done
	[[ $mode == demo || ${#scenarios[@]} -gt 0 ]] || die "no scenario matches --only '$only'"

	local t0 spec
	mkdir -p "$vmdir/results"
	# One run at a time per tree: runs share build/vm (and 2 CPUs).
	exec 9>"$vmdir/.lock"
	if ! flock -n 9; then
		note "another run.sh holds $vmdir/.lock; waiting for it"
		flock 9
	fi
	t0=$(now)
	build_userland
	for spec in $kernels; do
		run_kernel "$spec"
	done
	echo "1..$tap_n"
	note "total $(elapsed "$t0")s for: $kernels${only:+ (only $only)}"
	((n_skip == 0)) || note "$n_skip of the passed were skipped"
	echo "$n_pass passed, $n_fail failed"
	((n_fail == 0))
}

main "$@"
