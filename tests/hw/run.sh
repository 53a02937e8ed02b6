#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Hardware-event scenarios, for a machine with a real PMU and the module
# loaded (insmod kmod/pmclog.ko): the VM tests run under QEMU/TCG, which
# has none, so this is where the PMU source meets hardware.
#
#   tests/hw/run.sh [-v]
#
# For -e cycles and -e instructions, in process mode (-- busy) with a
# count (-c) and system-wide (-a) with a rate (-F): the log holds
# samples of busy, and most of busy's samples land in busy_loop(), found
# with nm(1) in the static busy binary.  Then a raw event, the interrupt
# limits (-c 1000 is throttled, logged and reported; -F above
# max_sample_rate is refused), and `pmclog list` showing the counters
# free again.  Output is TAP.  Exit status: 0 all passed, 1 a failure,
# 4 skipped (no module, no tool, no PMU, or perf holding the PMU; the
# reason is printed).
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
PMCLOG=${PMCLOG:-$repo/tools/pmclog/pmclog}
BUSY=${BUSY:-$repo/tests/workloads/bin/busy}
OUT=${OUT:-$(mktemp -d /tmp/pmclog-hw.XXXXXX)}
verbose=0
[ "${1:-}" = -v ] && verbose=1

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 4; }

[ -x "$PMCLOG" ] || skip_all "no pmclog tool at $PMCLOG (make tool)"
[ -x "$BUSY" ] || skip_all "no busy workload at $BUSY (make -C tests/workloads)"
[ -c /dev/pmclog ] || skip_all "/dev/pmclog missing: load the module (insmod kmod/pmclog.ko)"
command -v nm >/dev/null 2>&1 || skip_all "nm(1) is needed to find busy_loop"

"$PMCLOG" list >"$OUT/list.out" 2>"$OUT/list.err" ||
	skip_all "pmclog list failed: $(cat "$OUT/list.err")"
[ "$verbose" = 1 ] && sed 's/^/# /' "$OUT/list.out"
if grep -q '^pmu: none' "$OUT/list.out"; then
	skip_all "no hardware PMU here: $(sed -n 's/^pmu: none: //p' "$OUT/list.out")"
fi
if ! grep -qE '^  cycles +available' "$OUT/list.out"; then
	skip_all "this PMU does not count cycles: $(grep -E '^  cycles' "$OUT/list.out")"
fi
# Asking reserves nothing: perf holding the PMU shows when a record is
# refused (EX_TEMPFAIL, 75), or as busy counters.
if ! grep -q 'gp[0-9]:free' "$OUT/list.out"; then
	skip_all "no free counter (perf, the NMI watchdog?): sysctl kernel.nmi_watchdog=0, then run again"
fi
"$PMCLOG" record -q -e cycles -c 1000000 -o "$OUT/probe.pmclog" -- true \
	>"$OUT/probe.out" 2>"$OUT/probe.err"
if [ "$?" -eq 75 ]; then
	skip_all "perf holds the PMU: $(head -n 1 "$OUT/probe.err")"
fi
diag "$(head -n 2 "$OUT/list.out" | tr '\n' ' ')"

# busy_loop's [start, end) in the static busy: its address, and the next
# text symbol's.
range=$(nm -n "$BUSY" | awk '
	$3 == "busy_loop" { s = $1; next }
	s != "" && ($2 == "T" || $2 == "t") { print s, $1; exit }')
lo=$(echo "$range" | awk '{ print $1 }')
hi=$(echo "$range" | awk '{ print $2 }')
if [ -z "$lo" ] || [ -z "$hi" ]; then
	skip_all "busy_loop not found in $BUSY"
fi

# check_samples LOG PIDFILE WHAT: busy's samples exist and sit in busy_loop.
check_samples() {
	"$PMCLOG" dump -i "$1" >"$1.txt" 2>"$1.err" || { not_ok "$3: dump"; return; }
	pid=$(cat "$2" 2>/dev/null)
	[ -n "$pid" ] || { not_ok "$3: busy wrote its pid"; return; }
	# Three numbers, split on purpose: all, busy's, busy's in busy_loop.
	# shellcheck disable=SC2046
	set -- "$@" $(awk -v pid="$pid" -v lo="$lo" -v hi="$hi" '
		function hex(s,  i, c, v) {
			sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
				v = v * 16 + c
			}
			return v
		}
		$1 == "PCSAMPLE" {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			all++
			if (f["pid"] != pid) next
			mine++
			pc = hex(f["pc"])
			if (pc >= hex(lo) && pc < hex(hi)) inloop++
		}
		END { print all + 0, mine + 0, inloop + 0 }' "$1.txt")
	diag "$3: $4 samples, $5 of busy (pid $pid), $6 in busy_loop"
	if [ "$5" -ge 100 ]; then ok "$3: at least 100 samples of busy ($5)"
	else not_ok "$3: at least 100 samples of busy ($5)"; fi
	if [ "$5" -gt 0 ] && [ $(($6 * 100 / $5)) -ge 80 ]; then
		ok "$3: >= 80% of busy's samples in busy_loop ($6/$5)"
	else
		not_ok "$3: >= 80% of busy's samples in busy_loop ($6/$5)"
	fi
}

for ev in cycles instructions; do
	"$PMCLOG" record -e "$ev" -c 1000000 -o "$OUT/$ev-proc.pmclog" -- \
		"$BUSY" -p "$OUT/$ev-proc.pid" 2 >"$OUT/$ev-proc.out" 2>"$OUT/$ev-proc.err"
	st=$?
	if [ "$st" -eq 0 ]; then ok "record -e $ev -c 1000000 -- busy 2"
	else not_ok "record -e $ev -c 1000000 -- busy 2 (exit $st: $(tail -n 1 "$OUT/$ev-proc.err"))"; continue; fi
	check_samples "$OUT/$ev-proc.pmclog" "$OUT/$ev-proc.pid" "$ev, process mode"

	"$PMCLOG" record -a -e "$ev" -F 1000 -o "$OUT/$ev-sys.pmclog" -- \
		"$BUSY" -p "$OUT/$ev-sys.pid" 2 >"$OUT/$ev-sys.out" 2>"$OUT/$ev-sys.err"
	st=$?
	if [ "$st" -eq 0 ]; then ok "record -a -e $ev -F 1000 -- busy 2"
	else not_ok "record -a -e $ev -F 1000 -- busy 2 (exit $st: $(tail -n 1 "$OUT/$ev-sys.err"))"; continue; fi
	check_samples "$OUT/$ev-sys.pmclog" "$OUT/$ev-sys.pid" "$ev, system-wide, 1 kHz"
done

# A raw event: Intel 0x00c0 / AMD 0x00c0 are both "instructions retired".
"$PMCLOG" record -e r00c0:u -c 1000000 -o "$OUT/raw.pmclog" -- \
	"$BUSY" -p "$OUT/raw.pid" 1 >"$OUT/raw.out" 2>"$OUT/raw.err"
st=$?
if [ "$st" -eq 0 ]; then
	ok "record -e r00c0:u"
	"$PMCLOG" dump -i "$OUT/raw.pmclog" >"$OUT/raw.txt" 2>/dev/null
	k=$(awk '$1 == "PCSAMPLE" && / mode=kernel/ { n++ } END { print n + 0 }' "$OUT/raw.txt")
	if [ "$k" -eq 0 ]; then ok "r00c0:u: no kernel-mode samples"
	else not_ok "r00c0:u: no kernel-mode samples ($k)"; fi
else
	not_ok "record -e r00c0:u (exit $st: $(tail -n 1 "$OUT/raw.err"))"
fi

# The interrupt limits: cycles every 1000 events, due again before its NMI
# returns, would lock the CPU; it is throttled each tick instead, the log
# says so, the report counts it, and the rate stays near max_sample_rate.
rate=$(sed -n 's/^limits: \([0-9]*\) samples per second.*/\1/p' "$OUT/list.out")
"$PMCLOG" record -e cycles -c 1000 -o "$OUT/storm.pmclog" -- \
	"$BUSY" -p "$OUT/storm.pid" 2 >"$OUT/storm.out" 2>"$OUT/storm.err"
st=$?
if [ "$st" -eq 0 ]; then
	ok "record -e cycles -c 1000 -- busy 2 comes back"
	"$PMCLOG" dump -i "$OUT/storm.pmclog" >"$OUT/storm.txt" 2>/dev/null
	th=$(awk '$1 == "THROTTLE" && / reason=rate / { n++ } END { print n + 0 }' "$OUT/storm.txt")
	un=$(awk '$1 == "UNTHROTTLE" && / reason=rate / { n++ } END { print n + 0 }' "$OUT/storm.txt")
	ps=$(awk '$1 == "PCSAMPLE" { n++ } END { print n + 0 }' "$OUT/storm.txt")
	diag "storm: $ps samples, $th THROTTLE and $un UNTHROTTLE records (rate), max_sample_rate ${rate:-?}"
	if [ "$th" -ge 10 ]; then ok "storm: THROTTLE records ($th)"; else not_ok "storm: THROTTLE records ($th)"; fi
	if [ "$un" -ge 10 ]; then ok "storm: UNTHROTTLE records ($un)"; else not_ok "storm: UNTHROTTLE records ($un)"; fi
	# busy runs on one CPU for 2 s: about 2 * max_sample_rate at most.
	if [ -n "$rate" ] && [ "$ps" -le $((rate * 23 / 10)) ]; then
		ok "storm: samples within the rate limit ($ps for 2 s at ${rate}/s)"
	else
		not_ok "storm: samples within the rate limit ($ps for 2 s at ${rate:-?}/s)"
	fi
	"$PMCLOG" report -i "$OUT/storm.pmclog" >"$OUT/storm.rep" 2>"$OUT/storm.stats"
	if grep -qE '^pmclog report: throttled by the kernel: [1-9][0-9]* times' "$OUT/storm.stats"; then
		ok "storm: the report counts the throttles"
	else
		not_ok "storm: the report counts the throttles: $(grep throttled "$OUT/storm.stats")"
	fi
else
	not_ok "record -e cycles -c 1000 -- busy 2 (exit $st: $(tail -n 1 "$OUT/storm.err"))"
fi
if [ -n "$rate" ]; then
	"$PMCLOG" record -e cycles -F $((rate + 1)) -o "$OUT/fast.pmclog" -- true \
		>"$OUT/fast.out" 2>"$OUT/fast.err"
	st=$?
	if [ "$st" -eq 64 ] && grep -q 'max_sample_rate' "$OUT/fast.err"; then
		ok "-F above max_sample_rate is refused, with the limit"
	else
		not_ok "-F above max_sample_rate is refused (exit $st: $(head -n 1 "$OUT/fast.err"))"
	fi
fi

# Every counter given back.
"$PMCLOG" list >"$OUT/list-after.out" 2>&1
if grep '^counters:' "$OUT/list-after.out" | grep -q ':pmclog'; then
	not_ok "counters given back after the runs: $(grep '^counters:' "$OUT/list-after.out")"
else
	ok "counters given back after the runs"
fi
if dmesg 2>/dev/null | grep -qE 'NMI received for unknown reason|Dazed and confused'; then
	diag "dmesg reports unknown NMIs: $(dmesg | grep -cE 'unknown reason') (check that they predate this run)"
fi

echo "1..$n"
diag "artefacts in $OUT"
[ "$failed" -eq 0 ] || exit 1
exit 0
