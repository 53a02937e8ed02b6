#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# 50 recorders SIGKILLed at random moments, ten at a time: while the tool
# starts (before or during open, ALLOCATE, ATTACH, START), while it
# samples, while it stops and drains after a SIGTERM, and following a
# command's descendants (-d), all while other processes map, fork and
# exit, so that the hooks write to logs being torn down.  Each must die at once; afterwards no log
# may be left behind: no open /dev/pmclog, no log buffer in
# /proc/vmallocinfo (the check is shown to see one while a log runs), the
# module's use count 0.  Then rmmod, insmod, and a clean recording.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

KILLS=${KILLSTORM_KILLS:-50}
FILE=/lib/workloads/libhot_a.so
STOP=$OUT/churn.stop

# The churner: executable mappings and short process trees, all along.
churn() {
	while [ ! -e "$STOP" ]; do
		/bin/mapstorm -t 2 -r 5 "$FILE" >/dev/null 2>&1
		/bin/forker -n 1 >/dev/null 2>&1
		sleep 0.1
	done
}

# Lines of /proc/vmallocinfo allocated by pmclog's code (log buffers,
# tables of followed processes).
vmalloc_lines() { grep -c '\[pmclog\]' /proc/vmallocinfo; }

# Processes that hold /dev/pmclog open.
holders() {
	for _fd in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$_fd" 2>/dev/null)" = /dev/pmclog ] && echo "${_fd%/fd/*}"
	done | sort -u | wc -l
}

# sleep_ms_of N R: sleep R mod N milliseconds (N <= 1000).
sleep_ms_of() { sleep "0.$(printf %03d $(($2 % $1)))"; }

# kill_one N: start recorder N, SIGKILL it at a random moment of the phase
# N % 5 names, and append "N PHASE STATUS STARTED KILLED GONE" to
# kills.txt (STATUS "late" when it was still there 10 s after the kill;
# the times are /proc/uptime's).
kill_one() {
	# shellcheck disable=SC3028 # busybox sh has RANDOM
	_r=$RANDOM
	_log=$OUT/kill-$1.pmclog
	_phase=$(echo "start0 start sampling drain children" | cut -d' ' -f$(($1 % 5 + 1)))
	if [ "$_phase" = children ]; then
		pmclog record --no-kallsyms -d -F 1000 -q -o "$_log" -- \
			/bin/forker -n 4 /bin/busy 0.05 >/dev/null 2>&1 &
	else
		pmclog record --no-kallsyms -a -F 1000 -q -o "$_log" >/dev/null 2>&1 &
	fi
	_rec=$!
	read -r _t0 _ </proc/uptime
	case $_phase in
	start0) ;;			# before or while it opens the device
	start) sleep_ms_of 60 "$_r" ;;		# around ALLOCATE, ATTACH, START
	sampling | children)
		wait_for 10 test -s "$_log"
		vmalloc_lines >>"$OUT/vmalloc.txt"
		sleep_ms_of 250 "$_r"
		;;
	drain)
		wait_for 10 test -s "$_log"
		kill -TERM "$_rec" 2>/dev/null	# STOP, then drain to CLOSELOG
		# The drain is short: a third of these kills come at once.
		[ $((_r % 3)) = 0 ] || sleep_ms_of 20 "$_r"
		;;
	esac
	read -r _t1 _ </proc/uptime
	kill -KILL "$_rec" 2>/dev/null
	wait_exit "$_rec" 10 || WAIT_STATUS=late
	read -r _t2 _ </proc/uptime
	echo "$1 $_phase $WAIT_STATUS $_t0 $_t1 $_t2" >>"$OUT/kills.txt"
	rm -f "$_log"
}

rm -f "$STOP" "$OUT/kills.txt" "$OUT/vmalloc.txt"
churn &
churner=$!
# BATCH recorders at once, each killed at its own moment: owners come and
# go concurrently, and 50 kills fit in CI's time.
BATCH=10
i=0
while [ "$i" -lt "$KILLS" ]; do
	pids=
	j=0
	while [ "$j" -lt "$BATCH" ] && [ "$i" -lt "$KILLS" ]; do
		i=$((i + 1))
		j=$((j + 1))
		kill_one "$i" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086 # a list of pids
	wait $pids
done

touch "$STOP"
wait_exit "$churner" 30 || kill -KILL "$churner" 2>/dev/null
# The commands of the -d recorders outlive them; they end by themselves.
wait_for 10 sh -c '! pidof forker busy >/dev/null'

late=$(awk '$3 == "late" { n++ } END { print n + 0 }' "$OUT/kills.txt")
# 0: it had finished before the kill (a drain, or a command that ended).
bad_status=$(awk '$3 != "late" && $3 != 0 && $3 != 137 { n++ } END { print n + 0 }' "$OUT/kills.txt")
seen_vmalloc=$(sort -n "$OUT/vmalloc.txt" | tail -n 1)
is "$(wc -l <"$OUT/kills.txt")" "$KILLS" "$KILLS recorders started and SIGKILLed"
is "$late" 0 "all $KILLS SIGKILLed recorders died within 10 s"
is "$bad_status" 0 "each exited by the SIGKILL, or with 0 when it had ended first"
diag "phase status count: $(awk '{ n[$2 " " $3]++ } END { for (s in n) printf "%s %d; ", s, n[s] }' "$OUT/kills.txt")"
at_least "$seen_vmalloc" 1 "a running log's buffer shows in /proc/vmallocinfo"
is "$(holders)" 0 "no process holds /dev/pmclog open"
is "$(vmalloc_lines)" 0 "no log buffer left in /proc/vmallocinfo" ||
	grep '\[pmclog\]' /proc/vmallocinfo | head -n 3 | while IFS= read -r l; do diag "  $l"; done
is "$(awk '$1 == "pmclog" { print $3 }' /proc/modules)" 0 "pmclog's use count is 0"

module_unload_check "rmmod pmclog after $KILLS SIGKILLs"
check "insmod pmclog.ko again" module_load

bounded 30 pmclog record --no-kallsyms -a -F 1000 -o "$OUT/after.pmclog" -- /bin/busy 0.3 \
	>/dev/null 2>"$OUT/after.err"
is "$?" 0 "a recording after the reload exits 0" || diag "record: $(tail -n 3 "$OUT/after.err")"
dump_log "$OUT/after.pmclog" "$OUT/after.txt" || diag "dump: $(tail -n 3 "$OUT/after.txt.err")"
is "$(last_type "$OUT/after.txt")" CLOSELOG "and its log ends with CLOSELOG"
kernel_log_clean
