#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# An executable mmap/mprotect/munmap storm from several threads of one
# process at once (tests/workloads/mapstorm.c, whose comment lists what
# each of its calls owes), then a mapping of another file shrunk and grown
# again in place with mremap.  The workload counts the MAP_IN and MAP_OUT
# records it is owed; the log must hold exactly those for its mappings of
# each file, end with no mapping of them left and no MAP_OUT that ends
# nothing.  Should records be dropped (DROPNOTIFY says how many), only
# what that allows is checked: none too many, and no more missing than
# were dropped.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

FILE=/lib/workloads/libhot_a.so
GROWN=/lib/workloads/libhot_b.so
THREADS=4
ROUNDS=100
LOG=$OUT/storm.pmclog
TXT=$OUT/storm.txt

bounded 60 pmclog record --no-kallsyms -o "$LOG" -- \
	/bin/mapstorm -t "$THREADS" -r "$ROUNDS" -m "$GROWN" "$FILE" >"$OUT/mapstorm.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -- mapstorm -t $THREADS -r $ROUNDS exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(last_type "$TXT")" CLOSELOG "the log ends with CLOSELOG"

# mapstorm: pid=P threads=T rounds=R syscalls=N map_in=I map_out=O
pid=$(kv_of "$OUT/mapstorm.out" pid)
want_in=$(kv_of "$OUT/mapstorm.out" map_in)
want_out=$(kv_of "$OUT/mapstorm.out" map_out)
if [ -z "$pid" ] || [ -z "$want_in" ] || [ -z "$want_out" ]; then
	bail "mapstorm said what it did: $(cat "$OUT/mapstorm.out")"
fi
diag "mapstorm pid $pid: $(kv_of "$OUT/mapstorm.out" syscalls) calls, owed $want_in MAP_IN, $want_out MAP_OUT"

read -r _ _ dn_records _ _ dropped <<EOF
$(drop_counts "$TXT")
EOF
is "$dn_records" "$dropped" "DROPNOTIFY records add up to CLOSELOG records_dropped"
read -r got_in got_out stray left flagged <<EOF
$(file_map_counts "$TXT" "$pid" "$FILE")
EOF
diag "log: $got_in MAP_IN, $got_out MAP_OUT of $FILE; $stray stray MAP_OUT; $left left; $dropped records dropped"
is "$flagged" 0 "no MAP_IN of $FILE is flagged (INITIAL, ANON)"
if [ "$dropped" = 0 ]; then
	is "$got_in" "$want_in" "MAP_IN of $FILE: as many as mapstorm owed"
	is "$got_out" "$want_out" "MAP_OUT of $FILE: as many as mapstorm owed"
	is "$stray" 0 "no MAP_OUT ends a range the log did not map"
	is "$left" 0 "replayed, the log leaves no mapping of $FILE"
else
	# Which records were lost is not told: only the totals bind.  A
	# MAP_OUT whose MAP_IN was dropped is stray, and may be of $FILE.
	miss_out=$((want_out - got_out - stray))
	[ "$miss_out" -ge 0 ] || miss_out=0
	in_band "$got_in" 0 "$want_in" "MAP_IN of $FILE: no more than owed"
	in_band "$got_out" 0 "$want_out" "MAP_OUT of $FILE: no more than owed"
	in_band $((want_in - got_in + miss_out)) 0 "$dropped" \
		"MAP_IN and MAP_OUT missing: no more than the records dropped"
fi

# mremap: the tail unmapped, then mapped again by growing in place.
read -r got_in got_out stray left _ <<EOF
$(file_map_counts "$TXT" "$pid" "$GROWN")
EOF
want_in=$(kv_of "$OUT/mapstorm.out" grow_in)
want_out=$(kv_of "$OUT/mapstorm.out" grow_out)
if [ "$dropped" = 0 ]; then
	is "$got_out $stray" "$want_out 0" "mremap shrinking in place: MAP_OUT as owed, no stray"
	# Growth in place returns through vma_merge_extend() from 6.5 and
	# goes through __vma_adjust() before 6.3, both hooked; 6.3 and 6.4
	# grow through vma_merge(), which every other change of a vma calls
	# too: a known gap there.
	if grep -qwE 'vma_merge_extend|__vma_adjust' /proc/kallsyms; then
		is "$got_in $left" "$want_in 0" "mremap growing in place: MAP_IN as owed, none left"
	else
		skip "mremap growing in place: MAP_IN as owed, none left" \
			"not tracked on 6.3-6.4 (no vma_merge_extend, no __vma_adjust): MAP_IN $got_in of $want_in, $left left"
	fi
else
	skip "mremap shrinking, then growing in place" "$dropped records dropped"
fi
kernel_log_clean
