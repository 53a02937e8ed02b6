#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# pmclog record -g of dlswap, which dlopen()s libhot_a.so, spins in
# hot_a(), dlclose()s it, then the same with libhot_b.so and hot_b(), the
# loader putting the second where the first was: each library's frames
# keep their names in the stacks after it was dlclosed, and the names of
# the one mapped there at the sample's time, in every output that prints
# stacks: report --format folded, report --format pprof (its string table;
# test_pprof decodes it with Go's pprof on the build host) and pmclog
# script (each frame's function and object; MAP_IN and MAP_OUT between
# the samples).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

LIBDIR=/lib/workloads
SECS=1
HZ_REQ=1000

bounded 60 pmclog record --no-kallsyms -g -F $HZ_REQ -o "$OUT/dl.pmclog" -- \
	/bin/dlswap -p "$OUT/dl.pid" "$LIBDIR" $SECS >"$OUT/dl.out" 2>"$OUT/dl-record.err"
is "$?" 0 "record -g of dlswap exits 0" || diag "$(tail -n 3 "$OUT/dl-record.err")"
pid=$(cat "$OUT/dl.pid" 2>/dev/null)
dump_log "$OUT/dl.pmclog" "$OUT/dl.dump"

# Where the loader put each library's text: the same place, or the test
# proves less (a name per address would do).
starts=$(kv_awk -t MAP_IN "$OUT/dl.dump" '$1 == "MAP_IN" && f["path"] ~ /libhot_[ab]\.so$/ && f["pid"] == '"${pid:-0}"' {
	n = f["path"]; sub(/.*libhot_/, "", n); sub(/\.so$/, "", n); s[n] = s[n] f["start"] " " }
	END { print s["a"] "/" s["b"] }')
diag "libhot_a.so text at: ${starts%/*}; libhot_b.so at: ${starts#*/}"
same=$(echo "$starts" | awk -F/ '{ n = split($1, a, " "); m = split($2, b, " ")
	for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) if (a[i] == b[j]) s = 1 } END { print s + 0 }')
is "$same" 1 "libhot_b.so is mapped where libhot_a.so was"

# --- folded: each library's function, with main below it
bounded 60 pmclog report -i "$OUT/dl.pmclog" --format folded >"$OUT/dl.folded" 2>"$OUT/dl.err"
is "$?" 0 "report --format folded exits 0" || diag "$(tail -n 3 "$OUT/dl.err")"
sort -k2 -n -r -t' ' "$OUT/dl.folded" | head -n 6 | while IFS= read -r l; do diag "  $l"; done
for f in hot_a hot_b; do
	n=$(awk -v f=";$f" '{ c = $NF; k = substr($0, 1, length($0) - length(c) - 1) }
		index(k ";", f ";") { n += c } END { print n + 0 }' "$OUT/dl.folded")
	m=$(awk -v f=";$f" '{ c = $NF; k = substr($0, 1, length($0) - length(c) - 1) }
		index(k ";", f ";") && index(k, ";main;") { n += c } END { print n + 0 }' "$OUT/dl.folded")
	diag "folded: $n samples through $f, $m of them with main below"
	at_least "$n" $((SECS * HZ_REQ * 10 / 100)) "folded: $f is in the stacks of its library's time"
	[ "$n" -gt 0 ] && at_least $((m * 100 / n)) 80 "folded: $f's stacks go down to main (percent)"
done
both=$(awk '/;hot_a(;|$| )/ && /;hot_b(;|$| )/ { n++ } END { print n + 0 }' "$OUT/dl.folded")
is "$both" 0 "folded: no stack has both libraries' functions"
hex=$(awk '$0 ~ /libhot_[ab]\.so\]/ { n += $NF } END { print n + 0 }' "$OUT/dl.folded")
is "$hex" 0 "folded: no frame in the libraries left unnamed"

# --- script: each frame's function in the library mapped then
bounded 60 pmclog script --show-mmap-events -F sym,dso "$OUT/dl.pmclog" >"$OUT/dl.script" \
	2>"$OUT/dl-script.err"
is "$?" 0 "pmclog script exits 0" || diag "$(tail -n 3 "$OUT/dl-script.err")"
# The line numbers of the first library's MAP_IN and MAP_OUT (same start),
# of the second's MAP_IN, and of the functions' frames.
res=$(awk '
	function start(l) { return match(l, /\[0x[0-9a-f]+\(/) ? substr(l, RSTART, RLENGTH) : "" }
	/PERF_RECORD_MMAP2 .*libhot_a\.so$/ { ina = NR; sa = start($0) }
	/PERF_RECORD_MMAP2 .*libhot_b\.so$/ { inb = NR }
	/PMCLOG_RECORD_MAP_OUT/ && ina && !outa && start($0) == sa { outa = NR }
	$1 == "hot_a" { a++; if ($2 != "(" "'"$LIBDIR"'" "/libhot_a.so)") bad++; if (NR > lasta) lasta = NR }
	$1 == "hot_b" { b++; if ($2 != "(" "'"$LIBDIR"'" "/libhot_b.so)") bad++; if (!firstb) firstb = NR }
	END { printf "%d %d %d %d %d %d %d\n", a, b, bad, ina, outa, inb, (lasta < outa && outa < inb && inb < firstb) }' \
	"$OUT/dl.script")
set -- $res
diag "script: $1 frames of hot_a, $2 of hot_b; MAP_IN a at line $4, a MAP_OUT at $5, MAP_IN b at $6"
at_least "$1" $((SECS * HZ_REQ * 10 / 100)) "script: hot_a's frames"
at_least "$2" $((SECS * HZ_REQ * 10 / 100)) "script: hot_b's frames"
is "$3" 0 "script: every hot_a frame is libhot_a.so's, every hot_b frame libhot_b.so's"
is "$7" 1 "script: hot_a's samples, libhot_a.so's MAP_OUT, libhot_b.so's MAP_IN, hot_b's samples, in that order"

# --- pprof: the profile names both functions and both files
bounded 60 pmclog report -q -i "$OUT/dl.pmclog" --format pprof -o "$OUT/dl.pb.gz" 2>"$OUT/dl-pprof.err"
is "$?" 0 "report --format pprof exits 0" || diag "$(tail -n 3 "$OUT/dl-pprof.err")"
if zcat "$OUT/dl.pb.gz" >"$OUT/dl.pb" 2>"$OUT/dl-zcat.err"; then
	ok "the pprof profile is gzip ($(wc -c <"$OUT/dl.pb.gz") bytes, $(wc -c <"$OUT/dl.pb") unpacked)"
	# busybox grep stops a line at a NUL: the strings, a line each.
	tr '\000' '\n' <"$OUT/dl.pb" >"$OUT/dl.pb.txt"
	for s in hot_a hot_b "$LIBDIR/libhot_a.so" "$LIBDIR/libhot_b.so"; do
		if grep -q -F "$s" "$OUT/dl.pb.txt"; then ok "pprof: its strings have $s"; else
			not_ok "pprof: its strings have $s"; fi
	done
else
	not_ok "the pprof profile is gzip: $(head -c 200 "$OUT/dl-zcat.err")"
fi

module_unload_check "rmmod pmclog after the dlclose stacks"
kernel_log_clean
