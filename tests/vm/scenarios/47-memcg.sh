#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# What an open of /dev/pmclog costs the kernel is charged to the opener's
# memory cgroup.  With nsamples=16384, -g at depth 127 takes 32 MiB of
# stacks per CPU: inside a cgroup of 40 MiB the recording is refused with
# ENOMEM and a message that names the cgroup, nobody in it is OOM-killed,
# and the cgroup's peak stays under its limit; outside it, the same
# recording works.  (Charged to nobody, the stacks used to fit anywhere.)
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool

CG=/sys/fs/cgroup
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	mkdir -p $CG
	mount -t cgroup2 none $CG 2>"$OUT/mount.err" ||
		{ skip "memory cgroup" "cannot mount cgroup2: $(cat "$OUT/mount.err")"; exit 4; }
fi
grep -qw memory $CG/cgroup.controllers ||
	{ skip "memory cgroup" "no memory controller in this kernel"; exit 4; }
echo +memory >$CG/cgroup.subtree_control
mkdir -p $CG/pmclog
echo 40M >$CG/pmclog/memory.max
module_load nsamples=16384 || bail "load pmclog.ko nsamples=16384"

# rec_g NAME: record -a -g, depth 127, into $OUT/NAME.pmclog.
rec_g() {
	bounded 60 pmclog record --no-kallsyms -a -g --callchain-depth 127 -F 100 \
		-o "$OUT/$1.pmclog" -- sleep 1 >"$OUT/$1.out" 2>"$OUT/$1.err"
}

# A subshell moved into the cgroup: its recorder is charged there.
(echo 0 >$CG/pmclog/cgroup.procs && rec_g in)
is "$?" 71 "record -g inside a 40 MiB memory cgroup is refused (EX_OSERR)" ||
	diag "$(tail -n 3 "$OUT/in.err")"
grep -q "charged to this process's memory cgroup" "$OUT/in.err"
is "$?" 0 "and says that the stacks are charged to its memory cgroup" || diag "$(tail -n 3 "$OUT/in.err")"
is "$(awk '$1 == "oom_kill" { print $2 }' $CG/pmclog/memory.events)" 0 "nobody in the cgroup was OOM-killed"
peak=$(cat $CG/pmclog/memory.peak 2>/dev/null || cat $CG/pmclog/memory.max)
in_band "$peak" 1 $((40 * 1024 * 1024)) "the cgroup's peak stayed under its limit (bytes)"

rec_g out
is "$?" 0 "the same recording outside the cgroup exits 0" || diag "$(tail -n 3 "$OUT/out.err")"
rmdir $CG/pmclog
module_unload_check "rmmod after the refused and the whole recording"
kernel_log_clean
