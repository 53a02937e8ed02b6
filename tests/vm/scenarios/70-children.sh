#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Process mode follows descendants only when asked: with -d, each child
# that forker runs gets about its run time's worth of samples; without,
# the children get none.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

CHILDREN=4
SECS=0.5
HZ_REQ=1000

# record_forker NAME [-d]: forker runs CHILDREN busy children one after
# the other, each appending its pid to $OUT/NAME.pids.
record_forker() {
	_name=$1
	shift
	bounded 30 pmclog record --no-kallsyms "$@" -F "$HZ_REQ" -o "$OUT/$_name.pmclog" -- \
		/bin/forker -n "$CHILDREN" /bin/busy -p "$OUT/$_name.pids" "$SECS" \
		>"$OUT/$_name.out" 2>"$OUT/$_name.err"
	is "$?" 0 "pmclog record ${*:+$* }-- forker -n $CHILDREN busy $SECS exits 0" ||
		diag "record: $(tail -n 3 "$OUT/$_name.err")"
	dump_log "$OUT/$_name.pmclog" "$OUT/$_name.txt"
	is "$?" 0 "pmclog dump of the $_name log exits 0" ||
		diag "dump: $(tail -n 3 "$OUT/$_name.txt.err")"
}

# samples_of TXT PID
samples_of() {
	kv_awk "$1" '$1 == "PCSAMPLE" && f["pid"] == '"$2"' { n++ } END { print n + 0 }'
}

# pids_of NAME: the children's pids, one a line (none if they never ran).
pids_of() { cat "$OUT/$1.pids" 2>/dev/null; }

record_forker descendants -d
is "$(pids_of descendants | wc -l)" "$CHILDREN" "forker ran $CHILDREN busy children"
# At most 150% of 0.5 s x 1000 Hz (samples of other tasks counted as the
# child's), at least 10%: the rate is 20-system's and 30-process's check,
# and four busy children on two vCPUs of a busy host get less than their
# share of time (24% seen with three VMs on two cores).
while read -r pid; do
	[ -n "$pid" ] || continue
	in_band "$(samples_of "$OUT/descendants.txt" "$pid")" 50 750 "-d: child $pid has about $SECS s of samples"
done <<EOF_PIDS
$(pids_of descendants)
EOF_PIDS
npids=$(kv_awk "$OUT/descendants.txt" '$1 == "PCSAMPLE" { print f["pid"] }' | sort -u | wc -l)
# The children and forker (which is also the recorder's child before exec).
in_band "$npids" "$CHILDREN" $((CHILDREN + 1)) "-d: samples come from the children and forker only"

record_forker self
# Not vacuous: the children ran while the log was open, and it is whole.
is "$(pids_of self | wc -l)" "$CHILDREN" "forker ran $CHILDREN busy children"
is "$(last_type "$OUT/self.txt")" CLOSELOG "the log without -d ends with CLOSELOG"
total=0
while read -r pid; do
	[ -n "$pid" ] || continue
	total=$((total + $(samples_of "$OUT/self.txt" "$pid")))
done <<EOF_PIDS
$(pids_of self)
EOF_PIDS
is "$total" 0 "without -d the children have no samples"
