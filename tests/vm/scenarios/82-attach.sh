#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Attaching to a process that is already running (-p PID): its executable
# mappings are in the log, flagged INITIAL, ahead of its first sample, so
# that it resolves from the first sample on; the recording ends when the
# process exits, with its PROCEXIT.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

# busy must still run when the recorder attaches: longer on a slow kernel,
# and longer for the BPF collector, whose start (loading and attaching its
# programs) takes seconds under TCG.
SECS=$((3 * ${PMCLOG_TIME_FACTOR:-1}))
[ "${PMCLOG_COLLECTOR:-module}" = bpf ] && SECS=$((SECS + 3))
HZ_REQ=1000
LOG=$OUT/attach.pmclog
TXT=$OUT/attach.txt

/bin/busy -p "$OUT/busy.pid" "$SECS" >/dev/null 2>&1 &
bg=$!
wait_for 5 test -s "$OUT/busy.pid" || bail "busy started"
pid=$(cat "$OUT/busy.pid")
sleep 0.5
grep ' r-xp .*/bin/busy$' "/proc/$pid/maps" >"$OUT/busy.maps"

bounded 30 pmclog record --no-kallsyms -p "$pid" -F "$HZ_REQ" -o "$LOG" >"$OUT/record.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -p $pid exits 0 when busy exits" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
wait "$bg"
dump_log "$LOG" "$TXT" || diag "dump: $(tail -n 3 "$TXT.err")"

# Position (line) and stamp of busy's INITIAL text MAP_IN and of its first sample.
set -- $(kv_awk -t MAP_IN,PCSAMPLE "$TXT" '
	$1 == "MAP_IN" && f["pid"] == '"$pid"' && f["path"] == "/bin/busy" && !m { m = NR; mt = f["ts"]; fl = f["flags"]; s = f["start"] }
	$1 == "PCSAMPLE" && f["pid"] == '"$pid"' && !p { p = NR; pt = f["ts"] }
	END { print m + 0, p + 0, mt + 0, pt + 0, fl, s }')
at_least "$1" 1 "MAP_IN of /bin/busy for pid $pid is in the log"
is "$5" 0x4 "it is flagged INITIAL (0x4)"
want=$(printf '0x%x' "$((0x$(cut -d- -f1 "$OUT/busy.maps")))")
is "$6" "$want" "its start is the r-xp line of /proc/$pid/maps"
at_least "$2" 1 "busy has samples"
[ "$1" -gt 0 ] && [ "$2" -gt "$1" ] && ok "the MAP_IN comes before the first sample in the file" ||
	not_ok "the MAP_IN comes before the first sample in the file (lines $1, $2)"
[ "$3" -le "$4" ] && ok "and in time" || not_ok "and in time ($3 > $4)"
is "$(kv_awk -t PROCEXIT "$TXT" '$1 == "PROCEXIT" && f["pid"] == '"$pid"' { n++ } END { print n + 0 }')" 1 \
	"PROCEXIT of pid $pid"
is "$(last_type "$TXT")" CLOSELOG "last record is CLOSELOG"
n=$(count_type "$TXT" PCSAMPLE)
# The attached time is what the log shows, from busy's INITIAL MAP_IN (the
# recording's START) to its PROCEXIT: not SECS less the recorder's start-up,
# which on a slow host may take most of busy's life (the BPF collector loads
# and attaches its programs first).  At HZ_REQ: no more than 150% of it (a
# sampler of other tasks, or at the wrong rate), at least 10% (the rate is
# 30-process's check; a busy host starves the vCPU and the timer).
ms=$(kv_awk -t PROCEXIT "$TXT" '$1 == "PROCEXIT" && f["pid"] == '"$pid"' { printf "%d\n", (f["ts"] - '"$3"') / 1000000; exit }')
diag "  attached for ${ms:-?} ms of busy's ${SECS} s"
in_band "$n" $((${ms:-0} * HZ_REQ / 1000 * 10 / 100)) $((${ms:-0} * HZ_REQ / 1000 * 150 / 100 + 1)) \
	"PCSAMPLE count is about the attached time x $HZ_REQ Hz"
