#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 150
#
# STOP and close during a storm of executable mappings on one CPU: four
# system-wide logs follow mapstorm, pinned to cpu1, so that every mapping
# change queues four records there; SIGINT to all four recorders while
# the storm goes on.  Each must end within a bound, its log closed:
# the deferred writer used to empty cpu1's ring while mapstorm filled it,
# and STOP's flush waited for it as long as the storm lasted.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
[ "$(grep -c '^processor' /proc/cpuinfo)" -gt 1 ] || { skip "storm on cpu1" "one CPU"; exit 4; }
module_load || bail "load pmclog.ko"

FILE=/lib/workloads/libhot_b.so
LOGS="1 2 3 4"

/bin/mapstorm -t 2 -r 1000000 "$FILE" >"$OUT/mapstorm.out" 2>&1 &
storm=$!
on_cpu1 "$storm" mapstorm
for t in /proc/"$storm"/task/*; do
	taskset -p 2 "${t##*/}" >/dev/null 2>&1
done

pids=
for n in $LOGS; do
	sigdfl pmclog record --no-kallsyms -a -F 100 -o "$OUT/storm$n.pmclog" \
		>"$OUT/storm$n.out" 2>"$OUT/storm$n.err" &
	pids="$pids $!"
done
sleep 4
check "mapstorm still runs when the recorders are stopped" kill -0 "$storm"
# shellcheck disable=SC2086 # a list of pids
kill -INT $pids
n=0
for p in $pids; do
	n=$((n + 1))
	if wait_exit "$p" 20; then
		is "$WAIT_STATUS" 0 "recorder $n exits 0 within 20 s of SIGINT, the storm going on" ||
			diag "$(tail -n 3 "$OUT/storm$n.err")"
	else
		not_ok "recorder $n exits within 20 s of SIGINT, the storm going on"
		[ -r "/proc/$p/stack" ] &&
			while IFS= read -r l; do diag "  $l"; done <"/proc/$p/stack"
	fi
done
check "mapstorm was still running at the end" kill -0 "$storm"
kill "$storm" 2>/dev/null
wait "$storm" 2>/dev/null
# shellcheck disable=SC2086
wait $pids 2>/dev/null
for n in $LOGS; do
	dump_log "$OUT/storm$n.pmclog" "$OUT/storm$n.txt"
	is "$(last_type "$OUT/storm$n.txt")" CLOSELOG "log $n ends with CLOSELOG"
	rm -f "$OUT/storm$n.txt"
done
module_unload_check "rmmod after the storm"
kernel_log_clean
