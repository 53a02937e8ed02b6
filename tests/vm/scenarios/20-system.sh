#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# System-wide recording at 1 kHz while busy spins for 3 s: the log is
# framed by INITIALIZE and CLOSELOG, busy's samples are about 3 s worth,
# and nearly all in user mode.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

SECONDS_BUSY=3
HZ_REQ=1000
LOG=$OUT/sys.pmclog
TXT=$OUT/sys.txt

bounded 30 pmclog record --no-kallsyms -a -F "$HZ_REQ" -o "$LOG" -- /bin/busy -p "$OUT/busy.pid" "$SECONDS_BUSY" \
	>"$OUT/record.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -a -F $HZ_REQ -- busy $SECONDS_BUSY exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
[ -s "$LOG" ] || bail "record wrote $LOG"
pid=$(cat "$OUT/busy.pid" 2>/dev/null)
[ -n "$pid" ] || bail "busy wrote its pid"

dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(first_type "$TXT")" INITIALIZE "first record is INITIALIZE"
is "$(last_type "$TXT")" CLOSELOG "last record is CLOSELOG"

n=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" && f["pid"] == '"$pid"' { n++ } END { print n + 0 }')
user=$(kv_awk -t PCSAMPLE "$TXT" '$1 == "PCSAMPLE" && f["pid"] == '"$pid"' && f["mode"] == "user" { n++ } END { print n + 0 }')
all=$(count_type "$TXT" PCSAMPLE)
diag "PCSAMPLE: $all in all, $n of busy (pid $pid), $user of them in user mode"
diag "samples per CPU: $(cpu_counts "$TXT")"

# Expected: SECONDS_BUSY x HZ_REQ = 3000.  Measured on an idle host the
# hrtimer gives 840-1030 per second; when the host's two cores are busy a
# vCPU thread can be descheduled for tens of ms and the timer catches up
# with one sample for several periods.  30%..150% still fails a source
# running at half or double rate, or sampling the wrong task.
want=$((SECONDS_BUSY * HZ_REQ))
in_band "$n" $((want * 30 / 100)) $((want * 150 / 100)) "busy's PCSAMPLE count is about ${SECONDS_BUSY} s x ${HZ_REQ} Hz"
# busy_loop never enters the kernel except for the timer and the rare
# clock read (vDSO): measured 98-100% user.
if [ "$n" -gt 0 ]; then
	in_band $((user * 100 / n)) 90 100 "busy's samples are mostly mode=user (percent)"
else
	not_ok "busy's samples are mostly mode=user (no samples)"
fi

# The kernel's text, as the module found it without kallsyms (vmcoreinfo
# and the page tables), against /proc/kallsyms: it starts at _stext, was
# linked at x86-64's __START_KERNEL, and ends at _etext rounded up to its
# page (where the mapping turns NX), or, without NX, not before _etext.
ktext=$(kv_awk -t MAP_IN "$TXT" '$1 == "MAP_IN" && f["pid"] == -1 && f["path"] == "[kernel]" {
	print f["start"], f["end"], f["offset"]; exit }')
syms=$(awk '$3 == "_stext" || $3 == "_etext" { printf "%s=0x%s ", $3, $1 }' /proc/kallsyms)
diag "kernel MAP_IN start end offset: $ktext; kallsyms: $syms"
set -- $ktext
kstart=$1 kend=$2 koff=$3
stext=$(echo "$syms" | sed -n 's/.*_stext=\(0x[0-9a-f]*\).*/\1/p')
etext=$(echo "$syms" | sed -n 's/.*_etext=\(0x[0-9a-f]*\).*/\1/p')
if [ -n "$kstart" ] && [ -n "$stext" ] && [ -n "$etext" ]; then
	is "$(printf '%x' "$kstart")" "$(printf '%x' "$stext")" "[kernel] MAP_IN starts at _stext"
	is "$(printf '%x' "$koff")" ffffffff81000000 "[kernel] MAP_IN offset is _stext's link address"
	gap=$((kend - etext))
	if [ "$gap" -ge 0 ] && [ "$gap" -lt 4096 ]; then
		ok "[kernel] MAP_IN ends at _etext's page end (+$gap)"
	elif [ "$gap" -ge 0 ]; then
		ok "[kernel] MAP_IN ends after _etext (+$gap: no NX here)"
	else
		not_ok "[kernel] MAP_IN ends at or after _etext ($gap)"
	fi
else
	not_ok "[kernel] MAP_IN and _stext/_etext are there to compare"
fi

# With the kernel's symbols (the default), over two busy loops that keep
# the recorder's SCHED_IDLE kallsyms thread from running: the recording
# stops when the command exits, before the recorder waits for that
# thread.  It did not: sampling went on while the thread read
# /proc/kallsyms after the command (1.5-3 s under TCG), the recorder's
# own reading then made up 25-80% of the samples, and at 20 kHz filled
# the log while nobody copied it.  A second into the loops the command
# lists the recorder's threads' scheduling policies (stat's field 41):
# the thread's is SCHED_IDLE (5); at nice 19, as it was, it took the
# scheduler's minimum slice of a busy CPU every period.
LOG2=$OUT/sys2.pmclog
TXT2=$OUT/sys2.txt
bounded 60 pmclog record -a -F "$HZ_REQ" -o "$LOG2" -- \
	sh -c "echo \$\$ >$OUT/sh.pid; /bin/busy 2 & /bin/busy 2 & sleep 1
		for t in /proc/\$PPID/task/*; do echo \$(sed 's/.*) //' \$t/stat | cut -d' ' -f39); done >$OUT/policies.txt
		wait" \
	>"$OUT/record2.out" 2>"$OUT/record2.err"
is "$?" 0 "pmclog record -a -- two busy loops exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record2.err")"
shpid=$(cat "$OUT/sh.pid" 2>/dev/null)
dump_log "$LOG2" "$TXT2" || diag "dump: $(tail -n 3 "$TXT2.err")"
diag "the recorder's threads' policies: $(tr '\n' ' ' <"$OUT/policies.txt" 2>/dev/null)"
is "$(grep -c '^5$' "$OUT/policies.txt" 2>/dev/null)" 1 \
	"over busy CPUs the recorder reads /proc/kallsyms in one SCHED_IDLE thread"
at_least "$(grep -c '^KSYMBOL .* synth=1 ' "$TXT2")" 1 \
	"the recorder's kernel symbols, read after the command, are in the log"
# Stamps as numbers (+ 0): kv_awk's values are strings, and as strings a
# stamp of 9.9 s ("99...", ten digits) sorts after one of 10.1 s, which
# counted every sample of a recording that crossed 10 s of uptime as
# after the exit (1729 of 3900 in one CI run).
set -- $(kv_awk -t PROCEXIT,PCSAMPLE "$TXT2" '
	$1 == "PROCEXIT" && f["pid"] == "'"$shpid"'" { end = f["ts"] + 0 }
	$1 == "PCSAMPLE" { ts[++n] = f["ts"] + 0 }
	END { for (i = 1; i <= n; i++) if (end && ts[i] > end) a++; print n + 0, a + 0, end ? 1 : 0 }')
is "$3" 1 "the command's PROCEXIT (pid ${shpid:-?}) is in the log"
diag "PCSAMPLE: $1 in all, $2 after the command's exit"
at_least "$1" 1 "samples were taken"
[ "$1" -gt 0 ] && in_band $(($2 * 100 / $1)) 0 5 \
	"at most 5% of the samples come after the command's exit (percent)"
