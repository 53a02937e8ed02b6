#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Overflow of the per-CPU sample ring is counted, never silent.  With
# nsamples=2 and 20 kHz sampling, a CPU takes about 80 samples between two
# scheduler ticks (HZ=250) that drain its ring, so most are dropped; the
# DROPNOTIFY records and CLOSELOG's totals must add up exactly.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load nsamples=2 || bail "load pmclog.ko nsamples=2"

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
