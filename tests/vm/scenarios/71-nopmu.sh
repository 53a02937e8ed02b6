#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# No hardware PMU (QEMU/TCG: CPUID leaf 0xA is zero, PMU MSRs read 0):
# `pmclog list` says why the hardware events are unavailable, recording
# cycles or instructions fails with that reason, a non-zero status and a
# hint to use cpu-clock, and cpu-clock keeps working.  On a machine with
# a PMU the scenario skips (tests/hw/run.sh covers that case).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

pmclog list >"$OUT/list.out" 2>"$OUT/list.err"
is "$?" 0 "pmclog list exits 0" || diag "list: $(tail -n 3 "$OUT/list.err")"
if ! grep -q '^pmu: none' "$OUT/list.out"; then
	skip "no-PMU behaviour" "this machine has a PMU: $(head -n 1 "$OUT/list.out")"
	exit 0
fi
reason=$(sed -n 's/^pmu: none: //p' "$OUT/list.out")
diag "reason: $reason"
check "list gives a reason for the missing PMU" test -n "$reason"
check "dmesg says why there is no PMU" sh -c "dmesg | grep -q 'hardware PMU: none'"
for ev in cycles instructions branch-misses cache-misses; do
	check "list: $ev unavailable, with the reason" \
		grep -qF "$ev" "$OUT/list.out"
	line=$(grep -E "^  $ev " "$OUT/list.out")
	case $line in
	*"unavailable: $reason"*) ok "list: $ev unavailable: <reason>" ;;
	*) not_ok "list: $ev unavailable: <reason>"; diag "got: $line" ;;
	esac
done
check "list: cpu-clock available" grep -qE '^  cpu-clock +available' "$OUT/list.out"

for ev in cycles instructions; do
	bounded 30 pmclog record --no-kallsyms -e "$ev" -o "$OUT/$ev.pmclog" -- /bin/busy 1 \
		>"$OUT/$ev.out" 2>"$OUT/$ev.err"
	st=$?
	check "record -e $ev exits non-zero ($st)" test "$st" -ne 0
	check "record -e $ev names the reason" grep -qF "$reason" "$OUT/$ev.err"
	check "record -e $ev suggests cpu-clock" grep -qF 'cpu-clock' "$OUT/$ev.err"
	diag "record -e $ev: $(head -n 1 "$OUT/$ev.err")"
done

# :uk (both modes, as without it) spelled out, to tell the name given
# from the module's own spelling ("cpu-clock") in PMCALLOCATE.
bounded 30 pmclog record --no-kallsyms -e cpu-clock:uk -F 1000 -o "$OUT/clock.pmclog" -- /bin/busy -p "$OUT/busy.pid" 1 \
	>"$OUT/clock.out" 2>"$OUT/clock.err"
is "$?" 0 "record -e cpu-clock still works" || diag "record: $(tail -n 3 "$OUT/clock.err")"
dump_log "$OUT/clock.pmclog" "$OUT/clock.txt"
is "$(kv_awk -t PMCALLOCATE "$OUT/clock.txt" '$1 == "PMCALLOCATE" { print f["event"], f["name"] }')" \
	"cpu-clock cpu-clock:uk" "PMCALLOCATE names the event as -e gave it"
pid=$(cat "$OUT/busy.pid" 2>/dev/null)
n=$(kv_awk -t PCSAMPLE "$OUT/clock.txt" '$1 == "PCSAMPLE" && f["pid"] == '"${pid:-0}"' { n++ } END { print n + 0 }')
at_least "$n" 100 "cpu-clock samples of busy"
