#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# Several opens at once.  The module gives every open of /dev/pmclog its
# own log (kmod/pmclog_kern.h: one open is one owner); nothing is exclusive,
# so no open may fail with EBUSY and each log must be whole.  First 8
# bare opens held together, each of which reads its own INITIALIZE; then
# five recorders at the same time: two
# system-wide, two on the same process (-p), one following a command
# (-d).  The process, mapstorm, counts the MAP_IN and MAP_OUT records it
# is owed: the four logs that see it must each hold exactly those.  The
# command, forker, runs children that write down their pids: the -d log
# and both system-wide logs must each hold one PROCFORK, PROCEXEC and
# PROCEXIT per child.  Every recorder exits 0 and every log ends with
# CLOSELOG.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

OPENS=8
FILE=/lib/workloads/libhot_b.so
KIDS=5
GO=$OUT/go

holders() {
	for _fd in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$_fd" 2>/dev/null)" = /dev/pmclog ] && echo "$_fd"
	done | wc -l
}

# --- OPENS bare opens at once, each read up to its first record, then
# held open together
i=0
sleepers=
while [ "$i" -lt "$OPENS" ]; do
	i=$((i + 1))
	{
		dd bs=4096 count=1 2>/dev/null | od -An -tx1 -N2 | tr -d ' \n' >"$OUT/open-$i.hdr"
		exec sleep 30
	} </dev/pmclog 2>>"$OUT/open.err" &
	sleepers="$sleepers $!"
done
wait_for 10 sh -c "[ \$(cat $OUT/open-*.hdr 2>/dev/null | wc -c) -ge $((OPENS * 4)) ]"
is "$(holders)" "$OPENS" "$OPENS opens of /dev/pmclog held at once" ||
	diag "open: $(head -n 2 "$OUT/open.err")"
# magic 0xee, type 1: INITIALIZE
is "$(cat "$OUT"/open-*.hdr | sed 's/ee01/x/g')" "$(printf "%${OPENS}s" | tr ' ' x)" \
	"each open reads its own log's INITIALIZE"
# shellcheck disable=SC2086 # a list of pids
kill $sleepers
# shellcheck disable=SC2086
wait $sleepers 2>/dev/null
wait_for 10 sh -c "[ \$(awk '\$1 == \"pmclog\" { print \$3 }' /proc/modules) = 0 ]"
is "$(holders)" 0 "all closed again"

# --- five recorders at once
rm -f "$GO" "$OUT/kids.pids"
/bin/mapstorm -t 2 -r 25 -g "$GO" "$FILE" >"$OUT/mapstorm.out" 2>"$OUT/mapstorm.err" &
storm=$!
start() {	# start NAME OPTIONS...: a recorder in the background
	_n=$1
	shift
	pmclog record --no-kallsyms -F 500 -q -o "$OUT/$_n.pmclog" "$@" \
		>"$OUT/$_n.out" 2>"$OUT/$_n.err" &
	eval "pid_$_n=\$!"
}
start sys1 -a
start sys2 -a
start proc1 -p "$storm"
start proc2 -p "$storm"
for n in sys1 sys2 proc1 proc2; do
	wait_for 20 test -s "$OUT/$n.pmclog" || diag "$n: no record after 20 s: $(tail -n 2 "$OUT/$n.err")"
done
start kids -d -- /bin/forker -n "$KIDS" /bin/busy -p "$OUT/kids.pids" 0.05
touch "$GO"

# finish NAME [SIGNAL]: wait for a recorder (after SIGNAL), ok if it exits 0.
finish() {
	eval "_p=\$pid_$1"
	# shellcheck disable=SC2154 # _p is set by the eval
	[ -z "$2" ] || kill "-$2" "$_p"
	if wait_exit "$_p" 60; then
		is "$WAIT_STATUS" 0 "recorder $1 exits 0" || diag "$1: $(tail -n 2 "$OUT/$1.err")"
	else
		not_ok "recorder $1 exits within 60 s"
		kill -KILL "$_p"
	fi
}
wait_exit "$storm" 60 || diag "mapstorm still running after 60 s"
finish kids
finish proc1
finish proc2
finish sys1 TERM
finish sys2 TERM

spid=$(kv_of "$OUT/mapstorm.out" pid)
want_in=$(kv_of "$OUT/mapstorm.out" map_in)
want_out=$(kv_of "$OUT/mapstorm.out" map_out)
[ -n "$want_out" ] || bail "mapstorm said what it did: $(cat "$OUT/mapstorm.out") $(cat "$OUT/mapstorm.err")"
is "$(wc -l <"$OUT/kids.pids")" "$KIDS" "forker ran $KIDS children"
kids=$(tr '\n' ' ' <"$OUT/kids.pids")

for n in sys1 sys2 proc1 proc2 kids; do
	dump_log "$OUT/$n.pmclog" "$OUT/$n.txt" || diag "dump $n: $(tail -n 2 "$OUT/$n.txt.err")"
	is "$(last_type "$OUT/$n.txt")" CLOSELOG "$n: the log ends with CLOSELOG"
	read -r _ _ dn_records _ _ dropped <<EOF
$(drop_counts "$OUT/$n.txt")
EOF
	is "$dn_records" "$dropped" "$n: DROPNOTIFY records add up to CLOSELOG records_dropped"
	if [ "$dropped" != 0 ]; then
		# Nothing here should overflow a 1 MiB log; say so if it did.
		not_ok "$n: no record dropped ($dropped dropped)"
		continue
	fi
	case $n in kids) ;; *)
		read -r got_in got_out stray left _ <<EOF
$(file_map_counts "$OUT/$n.txt" "$spid" "$FILE")
EOF
		is "$got_in $got_out $stray $left" "$want_in $want_out 0 0" \
			"$n: mapstorm's MAP_IN, MAP_OUT of $FILE as owed, no stray MAP_OUT, none left"
		;;
	esac
	case $n in sys1 | sys2 | kids)
		is "$(grep -E '^PROC(FORK|EXEC|EXIT) ' "$OUT/$n.txt" | awk -v kids="$kids" '
			BEGIN { split(kids, k, " "); for (i in k) kid[k[i]] = 1 }
			{ p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p) }
			p in kid { n[$1]++ }
			END { printf "%d %d %d\n", n["PROCFORK"], n["PROCEXEC"], n["PROCEXIT"] }')" \
			"$KIDS $KIDS $KIDS" "$n: one PROCFORK, PROCEXEC, PROCEXIT per child of forker"
		;;
	esac
done
kernel_log_clean
