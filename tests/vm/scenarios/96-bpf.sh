#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# The BPF collector (pmclog record --bpf, and by itself without the
# module): the shared scenarios again without the module, then what is
# the collector's own: INITIALIZE says BPF wrote the log, plain pmclog
# record says why it falls back, and the module and BPF record the same
# workloads alike.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool

# What each adds for BPF (the others, 30-process, 70-children, 85-report
# and 89-callchain-dlclose, pass too, and cost CI a minute and a half a
# kernel for what these already cover): the kernel's MAP_IN against
# kallsyms, dlopen/dlclose at one address in both modes, module
# load/unload with KSYMBOLs, attaching to a running process, fork/exec,
# the unmap and mprotect cases, -g stacks, and two storms whose records
# are counted exactly.
# On PREEMPT_RT, where each of them takes twice as long under TCG (and
# each BPF recorder ends some 10 s later: every kprobe it detaches waits
# for RCU grace periods, slow there), the ones whose BPF paths differ
# there (the perf_event program in the timer's hard interrupt, the ring
# buffer's locks, kprobes in preemptible code): the rest is the same code
# as on the other kernels of the series.  dlopen/dlclose at one address
# is the dlswap recording below, module against BPF.
case $(uname -v) in
*PREEMPT_RT*)
	run_with_bpf 83-forkexec 91-mapstorm ;;
*)
	run_with_bpf 20-system 80-dlopen 81-kmod 82-attach 83-forkexec 84-mapops 89-callchain \
		91-mapstorm 92-procstorm ;;
esac

module_loaded && rmmod pmclog
bounded 60 pmclog record -o "$OUT/fallback.pmclog" -- /bin/busy 0.3 \
	>"$OUT/fallback.out" 2>"$OUT/fallback.err"
is "$?" 0 "pmclog record without the module exits 0"
check "it says it records through BPF, and why" \
	grep -q 'does not exist (the pmclog module is not loaded): recording through BPF' "$OUT/fallback.err"
dump_log "$OUT/fallback.pmclog" "$OUT/fallback.txt"
check "its INITIALIZE says the BPF collector wrote it" \
	grep -q '^INITIALIZE .* collector=bpf' "$OUT/fallback.txt"
is "$(last_type "$OUT/fallback.txt")" CLOSELOG "the log ends with CLOSELOG"
# Where the kernel has fprobe (Debian's 6.12, not its 6.1), every probe
# goes in two kprobe.multi links; a link refused, or a probe with no case
# in its dispatcher, falls back to one kprobe each with a warning, which
# records alike but detaches for seconds.
if grep -qw register_fprobe /proc/kallsyms; then
	check "the kprobe.multi links attached: no fallback to one kprobe each" \
		sh -c "! grep -q 'probing each function by itself' '$OUT/fallback.err'"
fi

# ------------------------------------------------------------------
# The same workloads recorded by the module and by BPF, with address
# space randomisation off so that both runs map alike: the workload's
# MAP_IN and MAP_OUT records (pids aside) are the same sets, and the
# samples share out alike between the functions.

# map_records TXT: the workload's MAP_IN / MAP_OUT, without pid or time.
map_records() {
	kv_awk -t MAP_IN,MAP_OUT "$1" '$1 == "MAP_IN" && f["pid"] != "-1" {
		print "MAP_IN", f["start"], f["end"], f["offset"], f["flags"], f["path"] }
	$1 == "MAP_OUT" && f["pid"] != "-1" { print "MAP_OUT", f["start"], f["end"] }' | sort
}

# differential NAME CMD...: record CMD with the module and with BPF.
differential() {
	_name=$1
	shift
	for _c in module bpf; do
		if [ "$_c" = module ]; then
			module_load || { not_ok "$_name: load pmclog.ko"; return 1; }
		else
			rmmod pmclog
		fi
		bounded 60 pmclog record --no-kallsyms -F 1000 -o "$OUT/$_name-$_c.pmclog" -- "$@" \
			>"$OUT/$_name-$_c.out" 2>"$OUT/$_name-$_c.err"
		is "$?" 0 "$_name: recorded by the $_c" || diag "$(tail -n 2 "$OUT/$_name-$_c.err")"
		dump_log "$OUT/$_name-$_c.pmclog" "$OUT/$_name-$_c.txt"
		map_records "$OUT/$_name-$_c.txt" >"$OUT/$_name-$_c.maps"
		bounded 60 pmclog report -i "$OUT/$_name-$_c.pmclog" --format folded \
			>"$OUT/$_name-$_c.folded" 2>/dev/null
	done
	if cmp -s "$OUT/$_name-module.maps" "$OUT/$_name-bpf.maps"; then
		ok "$_name: MAP_IN and MAP_OUT of the workload, module = BPF ($(wc -l <"$OUT/$_name-bpf.maps") records)"
	else
		not_ok "$_name: MAP_IN and MAP_OUT of the workload, module = BPF"
		diff "$OUT/$_name-module.maps" "$OUT/$_name-bpf.maps" | head -n 12 |
			while IFS= read -r l; do diag "  $l"; done
	fi
}

aslr=$(cat /proc/sys/kernel/randomize_va_space)
echo 0 >/proc/sys/kernel/randomize_va_space

differential dlswap /bin/dlswap /lib/workloads 1
for c in module bpf; do
	a=$(folded_count "$OUT/dlswap-$c.folded" libhot_a.so hot_a)
	b=$(folded_count "$OUT/dlswap-$c.folded" libhot_b.so hot_b)
	eval "share_$c=$((a + b > 0 ? a * 100 / (a + b) : 0))"
	diag "dlswap, $c: hot_a $a, hot_b $b samples"
done
# Each function is about half of its run; sampling error and TCG's noise
# stay well inside 10 points.
in_band "$share_bpf" $((share_module - 10)) $((share_module + 10)) \
	"dlswap: hot_a's share of hot_a + hot_b (percent), BPF within 10 points of the module's ($share_module)"

differential forker /bin/forker -n 3 /bin/busy 0.2
module_loaded && rmmod pmclog

echo "$aslr" >/proc/sys/kernel/randomize_va_space
