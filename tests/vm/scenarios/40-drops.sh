#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Overflow of the per-CPU sample ring is counted, never silent.  With
# nsamples=2, drain_watermark=0 (drained at the tick only) and 20 kHz
# sampling, a CPU takes about 80 samples between two scheduler ticks
# (HZ=250) that drain its ring, so most are dropped; the DROPNOTIFY
# records and CLOSELOG's totals must add up exactly.  A drain_watermark
# over 100 does not load.
#
# Then with the module's default parameters no sample is lost at 10 kHz
# and at 20 kHz per CPU: system-wide, and in process mode, with busy
# spinning on both CPUs.  At HZ=250 a CPU takes 40 (80) samples a tick,
# more than the ring of old (32 slots, drained at the tick only) held; now
# a ring is drained at once when it is a quarter full.  The checks are
# counts in the log, never times: no DROPNOTIFY, CLOSELOG's
# samples_dropped and records_dropped are 0, and every sample CLOSELOG
# counts is a PCSAMPLE in the log.  Last, the watermark drain alone: a
# ring of 8 (nsamples=8), far less than a tick's samples at 20 kHz, that
# drains from its first sample on (drain_watermark=1) loses nothing either,
# where a ring drained at the tick only loses most of them (above).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
if module_load drain_watermark=101; then
	not_ok "drain_watermark=101 is refused at load"
else
	ok "drain_watermark=101 is refused at load"
fi
check "dmesg says why" sh -c "dmesg | grep -q 'drain_watermark=101% is out of range 0-100'"
module_load nsamples=2 drain_watermark=0 || bail "load pmclog.ko nsamples=2 drain_watermark=0"

LOG=$OUT/drops.pmclog
TXT=$OUT/drops.txt

bounded 30 pmclog record --no-kallsyms -a -F 20000 -o "$LOG" -- /bin/busy 2 >"$OUT/record.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -a -F 20000 -- busy 2 exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
[ -s "$LOG" ] || bail "record wrote $LOG"
dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(last_type "$TXT")" CLOSELOG "last record is CLOSELOG"

pcs=$(count_type "$TXT" PCSAMPLE)
drops=$(count_type "$TXT" DROPNOTIFY)
drop_samples=$(sum_field "$TXT" DROPNOTIFY samples)
drop_records=$(sum_field "$TXT" DROPNOTIFY records)
samples=$(field_of "$TXT" CLOSELOG samples)
samples_dropped=$(field_of "$TXT" CLOSELOG samples_dropped)
records_dropped=$(field_of "$TXT" CLOSELOG records_dropped)
diag "PCSAMPLE=$pcs DROPNOTIFY=$drops (samples $drop_samples, records $drop_records)"
diag "CLOSELOG samples=$samples samples_dropped=$samples_dropped records_dropped=$records_dropped"

at_least "$drops" 1 "at least one DROPNOTIFY"
at_least "${samples_dropped:-x}" 1 "CLOSELOG counts dropped samples"
is "$drop_samples" "$samples_dropped" "DROPNOTIFY samples add up to CLOSELOG samples_dropped"
is "$drop_records" "$records_dropped" "DROPNOTIFY records add up to CLOSELOG records_dropped"
if [ "$records_dropped" = 0 ]; then
	is $((pcs + samples_dropped)) "$samples" "PCSAMPLE + samples_dropped == CLOSELOG samples"
else
	# Some PCSAMPLE records may be among the dropped records.
	lo=$((samples - samples_dropped - records_dropped))
	in_band "$pcs" "$((lo < 0 ? 0 : lo))" $((samples - samples_dropped)) \
		"PCSAMPLE within what CLOSELOG's totals allow ($records_dropped records dropped)"
fi

module_load || bail "load pmclog.ko with its defaults"

# nodrops NAME ARGS...: record busy on both CPUs for 2 s with ARGS.
nodrops() {
	_name=$1
	shift
	_log=$OUT/$_name.pmclog
	_txt=$OUT/$_name.txt
	bounded 60 pmclog record --no-kallsyms "$@" -o "$_log" -- \
		sh -c '/bin/busy 2 & /bin/busy 2; wait' \
		>"$OUT/$_name.out" 2>"$OUT/$_name.err"
	is "$?" 0 "$_name: pmclog record $* -- busy x2 exits 0" ||
		diag "record: $(tail -n 3 "$OUT/$_name.err")"
	[ -s "$_log" ] || { not_ok "$_name: record wrote $_log"; return 1; }
	dump_log "$_log" "$_txt"
	is "$?" 0 "$_name: pmclog dump exits 0" || diag "dump: $(tail -n 3 "$_txt.err")"
	is "$(last_type "$_txt")" CLOSELOG "$_name: last record is CLOSELOG"
	# shellcheck disable=SC2046 # six numbers
	set -- $(drop_counts "$_txt")
	_pcs=$(count_type "$_txt" PCSAMPLE)
	diag "$_name: PCSAMPLE=$_pcs DROPNOTIFY=$1 (samples $2, records $3); CLOSELOG samples=$4 samples_dropped=$5 records_dropped=$6"
	diag "$_name: samples per CPU: $(cpu_counts "$_txt")"
	is "$1" 0 "$_name: no DROPNOTIFY"
	is "$5" 0 "$_name: CLOSELOG samples_dropped is 0"
	is "$6" 0 "$_name: CLOSELOG records_dropped is 0"
	is "$_pcs" "$4" "$_name: every sample CLOSELOG counts is a PCSAMPLE"
	# 2 s on 2 CPUs: a fraction of what was asked still shows sampling
	# ran at a rate the tick drain alone could not hold; no time is judged.
	at_least "$_pcs" 1000 "$_name: samples were taken"
}

nodrops sys10k -a -F 10000
nodrops sys20k -a -F 20000
nodrops proc20k -F 20000

module_load nsamples=8 drain_watermark=1 || bail "load pmclog.ko nsamples=8 drain_watermark=1"
nodrops ring8 -a -F 20000
kernel_log_clean
