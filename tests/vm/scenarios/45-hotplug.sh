#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# CPU hotplug while sampling: cpu-clock keeps sampling the CPU that stays,
# at its rate (no second timer migrates onto it), and samples the CPU that
# comes back online again; system-wide (the timers run throughout) and in
# process mode with -d (the scheduler hook starts them, and a CPU that
# comes back is armed again).  Then the log stopped and closed while cpu1
# is offline, at 10 kHz with stacks, eight times: a drain or a wake-up
# queued on cpu1 just before it went must keep neither waiting (PREEMPT_RT
# runs them in cpu1's irq_work thread, which parks), and the module
# unloads after.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
CPU1=/sys/devices/system/cpu/cpu1/online
[ -w "$CPU1" ] || { skip "cpu1 cannot go offline here" "no $CPU1"; exit 4; }
module_load || bail "load pmclog.ko"

HZ_REQ=1000
# Busy on both CPUs, cpu1 offline for a while, then both again; the
# marker files' mtimes are not needed: the dump's cpu= fields tell.
cat >"$OUT/plug.sh" <<EOS
/bin/busy 1 & /bin/busy 1; wait
echo 0 >$CPU1
/bin/busy 1
echo 1 >$CPU1
/bin/busy 1 & /bin/busy 1; wait
EOS

# hotplug_run FLAG: record plug.sh with FLAG (-a, -d) and judge the log.
hotplug_run() {
	m=$1
	log=$OUT/plug$m.pmclog
	txt=$OUT/plug$m.txt
	slices=$OUT/slices$m.txt
	bounded 60 pmclog record --no-kallsyms "$m" -F "$HZ_REQ" -o "$log" -- sh "$OUT/plug.sh" \
		>"$OUT/record$m.out" 2>"$OUT/record$m.err"
	is "$?" 0 "pmclog record $m across cpu1 offline and online exits 0" ||
		diag "record: $(tail -n 3 "$OUT/record$m.err")"
	[ "$(cat "$CPU1")" = 1 ] || echo 1 >"$CPU1"
	dump_log "$log" "$txt" || diag "dump: $(tail -n 3 "$txt.err")"

	# Per CPU, samples in each 0.25 s slice of the run, in time order.
	kv_awk -t PCSAMPLE "$txt" '$1 == "PCSAMPLE" {
		if (t0 == "") t0 = f["ts"]
		s = int((f["ts"] - t0) / 250000000); n[f["cpu"], s]++; if (s > last) last = s
	} END { for (s = 0; s <= last; s++) print s, n[0, s] + 0, n[1, s] + 0 }' >"$slices"
	diag "$m: slice cpu0 cpu1: $(tr '\n' ';' <"$slices")"
	# The offline stretch: slices with no cpu1 sample between ones with some.
	gap=$(awk '$3 == 0 && seen && !back { g++ } $3 > 0 { if (g) back = 1; seen = 1 } END { print g + 0 }' "$slices")
	at_least "$gap" 2 "$m: cpu1 has no samples while offline (slices of 0.25 s)"
	after=$(awk '$3 == 0 && seen { g = 1 } $3 > 0 { if (g) n += $3; seen = 1 } END { print n + 0 }' "$slices")
	# 1 s on cpu1 after it is back, at HZ_REQ: at least 10% of it (the rate
	# is 20-system's check; a busy host starves the vCPU).
	at_least "$after" $((HZ_REQ * 10 / 100)) "$m: cpu1 is sampled again once back online"
	# While cpu1 is away, cpu0 runs at its own rate: a migrated second timer
	# would double it (HZ_REQ / 4 per slice).
	max0=$(awk '$3 == 0 && seen && $2 > m { m = $2 } $3 > 0 { seen = 1 } END { print m + 0 }' "$slices")
	in_band "$max0" 1 $((HZ_REQ / 4 * 130 / 100)) "$m: cpu0 keeps its rate while cpu1 is offline (samples per slice)"
}

hotplug_run -a
hotplug_run -d

# offline_stop N: record -a -g at 10 kHz over both CPUs busy, cpu1 offline
# 0.6 s in, SIGINT 0.3 s later, while it is still offline.
offline_stop() {
	log=$OUT/offstop$1.pmclog
	txt=$OUT/offstop$1.txt
	/bin/busy 8 >/dev/null 2>&1 &
	b0=$!
	/bin/busy 8 >/dev/null 2>&1 &
	b1=$!
	sigdfl pmclog record --no-kallsyms -a -g -F 10000 -o "$log" \
		>"$OUT/offstop$1.out" 2>"$OUT/offstop$1.err" &
	rec=$!
	wait_for 10 test -s "$log" || diag "no bytes in $log after 10 s"
	sleep 0.6
	echo 0 >"$CPU1"
	sleep 0.3
	kill -INT "$rec"
	if wait_exit "$rec" 30; then
		is "$WAIT_STATUS" 0 "round $1: record -a -g stopped while cpu1 is offline exits 0" ||
			diag "record: $(tail -n 3 "$OUT/offstop$1.err")"
	else
		not_ok "round $1: record -a -g stopped while cpu1 is offline exits within 30 s"
		[ -r "/proc/$rec/stack" ] &&
			while IFS= read -r l; do diag "  $l"; done <"/proc/$rec/stack"
	fi
	echo 1 >"$CPU1"
	kill "$b0" "$b1" 2>/dev/null
	wait "$b0" "$b1" 2>/dev/null
	dump_log "$log" "$txt" || diag "dump: $(tail -n 3 "$txt.err")"
	is "$(last_type "$txt")" CLOSELOG "round $1: its log ends with CLOSELOG"
	rm -f "$txt"
}

for round in 1 2 3 4 5 6 7 8; do
	offline_stop "$round"
done
module_unload_check "rmmod after the logs stopped with cpu1 offline"
kernel_log_clean
