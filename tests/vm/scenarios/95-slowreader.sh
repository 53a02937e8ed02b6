#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# A reader too slow for its log (logbuffersize=64, the smallest): the
# kernel drops records rather than wait, and says how many.  Three
# readers: tests/workloads/slowread, which reads 512 bytes every 20 ms
# while an mmap storm runs under it; slowread -s, which reads nothing
# until the storm is over and stops the log full (its DROPNOTIFY and
# CLOSELOG go in as its reads make room); and `pmclog record -a` stopped
# (SIGSTOP) for the length of a storm.  Each way: every read(2) returns
# whole records, the log is well formed and ends with CLOSELOG, the log did
# overflow, the DROPNOTIFY records add up to CLOSELOG's totals and to
# what the tools report (slowread's own sums, the recorder's summary,
# `pmclog report`), no count exceeds what the workload did, and no more
# records are missing than were dropped.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load logbuffersize=64 || bail "load pmclog.ko logbuffersize=64"

FILE=/lib/workloads/libhot_a.so

# check_log NAME PID: the checks common to both logs; PID is mapstorm's,
# NAME.ms its output.  Sets dn_samples, dn_records, c_sdrop, c_rdrop.
check_log() {
	_txt=$OUT/$1.txt
	dump_log "$OUT/$1.pmclog" "$_txt"
	is "$?" 0 "$1: pmclog dump reads the whole log" || diag "dump: $(tail -n 2 "$_txt.err")"
	is "$(first_type "$_txt") $(last_type "$_txt")" "INITIALIZE CLOSELOG" \
		"$1: the log starts with INITIALIZE, ends with CLOSELOG"
	read -r dn dn_samples dn_records c_samples c_sdrop c_rdrop <<EOF
$(drop_counts "$_txt")
EOF
	diag "$1: $dn DROPNOTIFY ($dn_samples samples, $dn_records records); CLOSELOG samples=$c_samples samples_dropped=$c_sdrop records_dropped=$c_rdrop"
	at_least "$c_rdrop" 1 "$1: the log overflowed (CLOSELOG records_dropped)"
	is "$dn_records" "$c_rdrop" "$1: DROPNOTIFY records add up to CLOSELOG records_dropped"
	is "$dn_samples" "$c_sdrop" "$1: DROPNOTIFY samples add up to CLOSELOG samples_dropped"
	bounded 60 pmclog report -i "$OUT/$1.pmclog" >/dev/null 2>"$OUT/$1.report"
	is "$(sed -n 's/.*dropped by the kernel: \([0-9]*\) samples, \([0-9]*\) records.*/\1 \2/p' "$OUT/$1.report")" \
		"$c_sdrop $c_rdrop" "$1: pmclog report says as much"

	# What the workload did bounds what the log holds; what is missing
	# (its MAP_IN and MAP_OUT, samples) was among the records dropped.
	# A MAP_OUT whose MAP_IN was dropped ends nothing the log mapped: such
	# stray ones may be mapstorm's too.
	_want_in=$(kv_of "$OUT/$1.ms" map_in)
	_want_out=$(kv_of "$OUT/$1.ms" map_out)
	read -r _in _out _stray _ _ <<EOF
$(file_map_counts "$_txt" "$2" "$FILE")
EOF
	_pcs=$(grep -c '^PCSAMPLE ' "$_txt")
	_miss_out=$((_want_out - _out - _stray))
	[ "$_miss_out" -ge 0 ] || _miss_out=0
	diag "$1: mapstorm owed $_want_in MAP_IN, $_want_out MAP_OUT; the log has $_in, $_out (and $_stray stray), and $_pcs PCSAMPLE of $((c_samples - c_sdrop)) samples"
	in_band "$_in" 0 "$_want_in" "$1: MAP_IN of $FILE: no more than mapstorm owed"
	in_band "$_out" 0 "$_want_out" "$1: MAP_OUT of $FILE: no more than mapstorm owed"
	in_band $((_want_in - _in + _miss_out + c_samples - c_sdrop - _pcs)) 0 "$c_rdrop" \
		"$1: MAP_IN, MAP_OUT and PCSAMPLE missing: no more than the records dropped"
}

# slowread_storm NAME ARGS...: slowread ARGS over an mmap storm into
# NAME.pmclog, then check_log, and slowread's own sums over what it read
# against the dump's.  NAME.sr is slowread's line, for the checks of each.
slowread_storm() {
	sr_name=$1
	shift
	bounded 60 /bin/slowread "$@" -F 1000 -o "$OUT/$sr_name.pmclog" -- \
		/bin/mapstorm -t 2 -r 150 "$FILE" >"$OUT/$sr_name.out" 2>"$OUT/$sr_name.err"
	is "$?" 0 "$sr_name: slowread $* exits 0: every read(2) returned whole records" ||
		diag "slowread: $(tail -n 2 "$OUT/$sr_name.err")"
	grep '^mapstorm:' "$OUT/$sr_name.out" >"$OUT/$sr_name.ms"
	grep '^slowread:' "$OUT/$sr_name.out" >"$OUT/$sr_name.sr"
	check_log "$sr_name" "$(kv_of "$OUT/$sr_name.ms" pid)"
	is "$(kv_of "$OUT/$sr_name.sr" dropnotify) $(kv_of "$OUT/$sr_name.sr" samples_dropped) $(kv_of "$OUT/$sr_name.sr" records_dropped)" \
		"$dn $dn_samples $dn_records" "$sr_name: slowread's own sums over what it read are the dump's"
}

# --- slowread: a reader that lags behind, by design
slowread_storm slow -b 512 -d 20
# How many 512-byte reads fit while mapstorm runs depends on how fast the
# machine is (a handful here, under TCG): at least one, each of whole records
# (slowread's exit status), none longer than asked for.
at_least "$(kv_of "$OUT/slow.sr" small_reads)" 1 "slow: slowread read in small pieces while mapstorm ran"
in_band "$(kv_of "$OUT/slow.sr" small_max)" 1 512 "slow: no read(2) of 512 bytes returned more"

# --- slowread -s: no read until the storm is over, then STOP, the log full
slowread_storm full -s
# Everything came after STOP: the whole 64 KiB log, but for less than a
# record that found no room, and then what STOP could not put in.
at_least "$(kv_of "$OUT/full.sr" after_stop)" $((64 * 1024 - 256)) \
	"full: STOP found the log full (64 KiB read after it)"
is "$(kv_of "$OUT/full.sr" closelog)" 1 "full: slowread read one CLOSELOG"

# --- pmclog record, stopped while a storm fills its log
pmclog record --no-kallsyms -a -F 1000 -o "$OUT/stopped.pmclog" >/dev/null 2>"$OUT/stopped.err" &
rec=$!
wait_for 20 test -s "$OUT/stopped.pmclog" || diag "record: $(tail -n 2 "$OUT/stopped.err")"
kill -STOP "$rec"
/bin/mapstorm -t 2 -r 100 "$FILE" >"$OUT/stopped.ms" 2>&1
sleep 0.5
kill -CONT "$rec"
sleep 0.5
kill -TERM "$rec"
if wait_exit "$rec" 30; then
	is "$WAIT_STATUS" 0 "stopped: pmclog record exits 0 after SIGSTOP, SIGCONT, SIGTERM" ||
		diag "record: $(tail -n 2 "$OUT/stopped.err")"
else
	not_ok "stopped: pmclog record exits within 30 s of SIGTERM"
	kill -KILL "$rec"
fi
check_log stopped "$(kv_of "$OUT/stopped.ms" pid)"
# "pmclog: N records, N samples, N samples dropped, N records dropped, ..."
is "$(sed -n 's/.* \([0-9]*\) samples dropped, \([0-9]*\) records dropped.*/\1 \2/p' "$OUT/stopped.err")" \
	"$c_sdrop $c_rdrop" "stopped: the recorder's summary says as much"
kernel_log_clean
