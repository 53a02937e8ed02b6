#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 150
#
# fork + exec + exit: PROCFORK, PROCEXEC (then the new image's MAP_IN)
# and PROCEXIT for each child in process mode (descendants are followed
# by default) and system-wide; with --no-inherit, no record at all about
# the children, which are not targets.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

CHILDREN=3

# record NAME [OPTIONS]: forker runs CHILDREN short busy children.
record() {
	_name=$1
	shift
	: >"$OUT/$_name.pids"
	bounded 60 pmclog record --no-kallsyms "$@" -o "$OUT/$_name.pmclog" -- \
		/bin/forker -n "$CHILDREN" /bin/busy -p "$OUT/$_name.pids" 0.2 \
		>"$OUT/$_name.out" 2>"$OUT/$_name.err"
	is "$?" 0 "$_name: pmclog record ${*:+$* }-- forker exits 0" ||
		diag "record: $(tail -n 3 "$OUT/$_name.err")"
	dump_log "$OUT/$_name.pmclog" "$OUT/$_name.txt" ||
		diag "dump: $(tail -n 3 "$OUT/$_name.txt.err")"
}

# count TXT AWK-CONDITION
count() { kv_awk "$1" "$2"' { n++ } END { print n + 0 }'; }

for name in children system; do
	if [ "$name" = system ]; then record "$name" -a; else record "$name"; fi
	txt=$OUT/$name.txt
	forker=$(kv_awk -t PROCEXEC "$txt" '$1 == "PROCEXEC" && f["path"] == "/bin/forker" { print f["pid"]; exit }')
	[ -n "$forker" ] && ok "$name: PROCEXEC of /bin/forker" || not_ok "$name: PROCEXEC of /bin/forker"
	by_time "$txt" >"$txt.by-time"
	while read -r child; do
		[ -n "$child" ] || continue
		is "$(count "$txt" '$1 == "PROCFORK" && f["ppid"] == "'"$forker"'" && f["pid"] == '"$child")" 1 \
			"$name: PROCFORK ppid=$forker pid=$child"
		# PROCEXEC, then the MAP_IN of the new image, then PROCEXIT, in time.
		order=$(kv_awk "$txt.by-time" 'f["pid"] == '"$child"' && $1 == "PROCEXEC" && f["path"] == "/bin/busy" { e = NR }
			f["pid"] == '"$child"' && $1 == "MAP_IN" && f["path"] == "/bin/busy" && e && !m { m = NR }
			f["pid"] == '"$child"' && $1 == "PROCEXIT" { x = NR }
			END { print (e && m > e && x > m) ? "ok" : e " " m " " x }')
		is "$order" ok "$name: PROCEXEC /bin/busy, its MAP_IN, PROCEXIT for pid $child, in that order"
	done <"$OUT/$name.pids"
	is "$(wc -l <"$OUT/$name.pids")" "$CHILDREN" "$name: forker ran $CHILDREN children"
done

record self --no-inherit
pids=$(tr '\n' '|' <"$OUT/self.pids")
is "$(kv_awk "$OUT/self.txt" '($1 ~ /^PROC|^MAP_|^PCSAMPLE/) && (f["pid"] ~ /^('"${pids%|}"')$/) { n++ } END { print n + 0 }')" 0 \
	"--no-inherit: no record about the children"
is "$(wc -l <"$OUT/self.pids")" "$CHILDREN" "--no-inherit: forker ran $CHILDREN children"
