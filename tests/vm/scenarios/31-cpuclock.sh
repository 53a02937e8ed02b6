#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Process mode's cpu-clock interrupts only the CPUs that run a target, as
# perf's per-task cpu-clock does: a target held on cpu0 at 4 kHz costs
# cpu1 no more timer interrupts than the same run without a recording.
# (Until the timers followed the scheduler, cpu1 took one per period,
# idle: about as many interrupts as cpu0's samples.)
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] ||
	{ skip "cpu1's timer interrupts" "one CPU"; exit 4; }
module_load || bail "load pmclog.ko"

SECONDS_BUSY=2
HZ_REQ=4000
LOG=$OUT/pinned.pmclog
TXT=$OUT/pinned.txt

# cpu1's local timer interrupts so far.
loc1() { awk '$1 == "LOC:" { print $3 }' /proc/interrupts; }

# The same run bare, for what cpu1 takes anyway (the tick, the shell).
l0=$(loc1)
taskset 1 /bin/busy "$SECONDS_BUSY"
l1=$(loc1)
bare=$((l1 - l0))

l0=$(loc1)
# The recorder held on cpu0 too: its child, the target, starts there and
# never runs on cpu1.  (Pinned by taskset under the recorder, the target
# ran on cpu1 until taskset had set its affinity: up to 1.3% of the
# samples under TCG.)
bounded 30 taskset 1 pmclog record --no-kallsyms -F "$HZ_REQ" -o "$LOG" -- /bin/busy "$SECONDS_BUSY" \
	>"$OUT/record.out" 2>"$OUT/record.err"
rc=$?
l1=$(loc1)
is "$rc" 0 "taskset 1 pmclog record -F $HZ_REQ -- busy $SECONDS_BUSY exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
rec=$((l1 - l0))
dump_log "$LOG" "$TXT" || diag "dump: $(tail -n 3 "$TXT.err")"

n=$(count_type "$TXT" PCSAMPLE)
on1=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" && f["cpu"] == 1 { n++ } END { print n + 0 }')
diag "PCSAMPLE: $n ($on1 on cpu1); cpu1's timer interrupts: $bare bare, $rec recording"
want=$((SECONDS_BUSY * HZ_REQ))
# See 20-system for the band.
in_band "$n" $((want * 30 / 100)) $((want * 150 / 100)) "PCSAMPLE count is about ${SECONDS_BUSY} s x ${HZ_REQ} Hz"
is "$on1" 0 "no PCSAMPLE on cpu1, where the target never runs"
# Work the module queues may still run on cpu1 (an unbound kworker):
# allow it a tenth of the samples (a timer running idle would add all of
# them).
in_band "$rec" 0 $((bare + n / 10)) "cpu1's timer interrupts while recording: the bare run's and a tenth of the samples at most"
