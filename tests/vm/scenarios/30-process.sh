#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Process-mode recording of one command: every sample belongs to that
# process, and there are about as many as its run time says.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

SECONDS_BUSY=3
HZ_REQ=1000
LOG=$OUT/proc.pmclog
TXT=$OUT/proc.txt

bounded 30 pmclog record --no-kallsyms -F "$HZ_REQ" -o "$LOG" -- /bin/busy -p "$OUT/busy.pid" "$SECONDS_BUSY" \
	>"$OUT/record.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -F $HZ_REQ -- busy $SECONDS_BUSY exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
[ -s "$LOG" ] || bail "record wrote $LOG"
pid=$(cat "$OUT/busy.pid" 2>/dev/null)
[ -n "$pid" ] || bail "busy wrote its pid"

dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(first_type "$TXT")" INITIALIZE "first record is INITIALIZE"
is "$(last_type "$TXT")" CLOSELOG "last record is CLOSELOG"

pids=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" { print f["pid"] }' | sort -u | tr '\n' ' ')
is "$pids" "$pid " "every PCSAMPLE has busy's pid ($pid)"
tids=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" { print f["tid"] }' | sort -u | tr '\n' ' ')
is "$tids" "$pid " "every PCSAMPLE has busy's only thread"

n=$(count_type "$TXT" PCSAMPLE)
user=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" && f["mode"] == "user" { n++ } END { print n + 0 }')
diag "PCSAMPLE: $n, $user in user mode"
# See 20-system for the band.
want=$((SECONDS_BUSY * HZ_REQ))
in_band "$n" $((want * 30 / 100)) $((want * 150 / 100)) "PCSAMPLE count is about ${SECONDS_BUSY} s x ${HZ_REQ} Hz"
if [ "$n" -gt 0 ]; then
	in_band $((user * 100 / n)) 90 100 "samples are mostly mode=user (percent)"
fi
