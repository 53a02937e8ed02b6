#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# BUILDID: what a log maps is identified by its GNU build-id.  The module
# writes one after the MAP_IN of each file mapping (from the page cache)
# and of each module that loads while the log runs (from its ELF image);
# the recorder adds those of the kernel and of the modules loaded at
# START (from /sys).  Each is checked against the build-id that the
# host's readelf read from the same file (/lib/vmtest/buildids).  A
# module rebuilt and reloaded in the middle of the run is two objects:
# the samples of each load are named by that build's own functions.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

IDS=/lib/vmtest/buildids
LIBDIR=/lib/workloads
TESTMOD=/lib/modules/pmclog_testmod.ko
REBUILT=/lib/modules/rebuilt/pmclog_testmod.ko
HZ_REQ=1000

# id_of PATH: the host's build-id of PATH, or nothing.
id_of() { awk -v p="$1" '$1 == p { print $2; exit }' "$IDS"; }

# buildids_of DUMP PATH [FLAGS]: "START BUILD_ID" for each MAP_IN of PATH
# (with those flags, if given), the build-id of the BUILDID of the same
# pid and start that follows it before the next MAP_IN there, or "-".
buildids_of() {
	kv_awk -t MAP_IN,BUILDID "$1" '$1 == "MAP_IN" { delete cur[f["pid"] " " f["start"]] }
		$1 == "MAP_IN" && f["path"] == "'"$2"'" && ("'"${3:-}"'" == "" || f["flags"] == "'"${3:-}"'") {
			cur[f["pid"] " " f["start"]] = ++n; start[n] = f["start"]
		}
		$1 == "BUILDID" && ((f["pid"] " " f["start"]) in cur) {
			got[cur[f["pid"] " " f["start"]]] = f["build_id"]
		}
		END {
			for (i = 1; i <= n; i++)
				print start[i], ((i in got) ? got[i] : "-")
		}'
}

# check_ids DUMP PATH ID WHAT: every MAP_IN of PATH has a BUILDID, ID.
check_ids() {
	buildids_of "$1" "$2" >"$1.ids"
	_n=$(wc -l <"$1.ids")
	_good=$(awk -v id="$3" '$2 == id { n++ } END { print n + 0 }' "$1.ids")
	diag "$4: $_n MAP_INs of $2, $_good with build-id $3"
	[ "$_n" -gt 0 ] || { not_ok "$4: the log maps $2"; return; }
	is "$_good" "$_n" "$4: each MAP_IN of $2 has its BUILDID, the file's"
}

# ------------------------------------------------------------------
# Files: the program, and two libraries dlopen()ed one after the other

bounded 60 pmclog record -F $HZ_REQ -o "$OUT/dl.pmclog" -- /bin/dlswap $LIBDIR 1 \
	>"$OUT/dl-record.out" 2>"$OUT/dl-record.err"
is "$?" 0 "record dlswap exits 0" || diag "$(tail -n 3 "$OUT/dl-record.err")"
dump_log "$OUT/dl.pmclog" "$OUT/dl.dump"
for f in /bin/dlswap $LIBDIR/libhot_a.so $LIBDIR/libhot_b.so; do
	id=$(id_of "$f")
	if [ -n "$id" ]; then
		check_ids "$OUT/dl.dump" "$f" "$id" "dlswap"
	else
		skip "dlswap: BUILDID of $f" "the host's readelf shows no build-id"
	fi
done
is "$(kv_awk -t BUILDID "$OUT/dl.dump" '$1 == "BUILDID" && f["pid"] != -1 && f["synth"] == 1 { n++ } END { print n + 0 }')" 0 \
	"dlswap: no BUILDID of a process is the recorder's"

# ------------------------------------------------------------------
# A library replaced on disk after the run: not read for names (its
# build-id is not the log's), said; the archive still names it

# sum_sym FOLDED OBJECT SYMBOL: the samples of OBJECT;SYMBOL.
sum_sym() { awk -v k="$2;$3" '{ c = $NF; sub(/ [0-9]+$/, "") } $0 == k { n += c } END { print n + 0 }' "$1"; }

bounded 60 pmclog record -F $HZ_REQ --archive "$OUT/arch" -o "$OUT/ar.pmclog" -- /bin/dlswap $LIBDIR 1 \
	>"$OUT/ar-record.out" 2>"$OUT/ar-record.err"
is "$?" 0 "record dlswap --archive exits 0" || diag "$(tail -n 3 "$OUT/ar-record.err")"
diag "$(grep 'archived' "$OUT/ar-record.err")"
cmp -s "$LIBDIR/libhot_a.so" "$OUT/arch$LIBDIR/libhot_a.so"
is "$?" 0 "the archive holds libhot_a.so as it was mapped"
cp "$LIBDIR/libhot_a.so" "$OUT/libhot_a.so.orig"
cp "$LIBDIR/libhot_b.so" "$LIBDIR/libhot_a.so"
bounded 60 pmclog report -i "$OUT/ar.pmclog" --format folded >"$OUT/ar.folded" 2>"$OUT/ar.err"
is "$?" 0 "report with libhot_a.so replaced exits 0" || diag "$(tail -n 3 "$OUT/ar.err")"
grep 'libhot' "$OUT/ar.folded" | while IFS= read -r l; do diag "  $l"; done
grep -q "libhot_a.so.*build-id" "$OUT/ar.err"
is "$?" 0 "report says libhot_a.so is not the build the log mapped" || diag "$(cat "$OUT/ar.err")"
is "$(sum_sym "$OUT/ar.folded" libhot_a.so hot_b)" 0 "no sample of libhot_a.so is named after the file now there"
is "$(sum_sym "$OUT/ar.folded" libhot_a.so hot_a)" 0 "libhot_a.so's samples are not named from the file now there"
at_least "$(sum_sym "$OUT/ar.folded" libhot_b.so hot_b)" 10 "libhot_b.so, unchanged, is still named"
bounded 60 pmclog report -i "$OUT/ar.pmclog" -r "$OUT/arch" --format folded >"$OUT/ar-r.folded" 2>"$OUT/ar-r.err"
is "$?" 0 "report -r ARCHIVE exits 0" || diag "$(tail -n 3 "$OUT/ar-r.err")"
at_least "$(sum_sym "$OUT/ar-r.folded" libhot_a.so hot_a)" 10 "report -r ARCHIVE names libhot_a.so's samples hot_a"
cp "$OUT/libhot_a.so.orig" "$LIBDIR/libhot_a.so"

# ------------------------------------------------------------------
# A file rewritten in place: the module keeps the build-ids it found by
# file (inode, size, ctime); the same inode with new contents is read
# again, never given the old build-id

SWAP=/tmp/swaplib
mkdir -p $SWAP
cp "$LIBDIR/libhot_a.so" "$LIBDIR/libhot_b.so" $SWAP/
for run in 1 2; do
	bounded 60 pmclog record -F $HZ_REQ -o "$OUT/rw$run.pmclog" -- /bin/dlswap $SWAP 1 \
		>"$OUT/rw$run-record.out" 2>"$OUT/rw$run-record.err"
	is "$?" 0 "rewrite: record $run exits 0" || diag "$(tail -n 3 "$OUT/rw$run-record.err")"
	dump_log "$OUT/rw$run.pmclog" "$OUT/rw$run.dump"
done
ida=$(id_of "$LIBDIR/libhot_a.so")
idb=$(id_of "$LIBDIR/libhot_b.so")
if [ -n "$ida" ] && [ -n "$idb" ] && [ "$ida" != "$idb" ]; then
	check_ids "$OUT/rw2.dump" $SWAP/libhot_a.so "$ida" "mapped again, unchanged"
	ino=$(stat -c %i $SWAP/libhot_a.so)
	cat "$LIBDIR/libhot_b.so" >$SWAP/libhot_a.so
	is "$(stat -c %i $SWAP/libhot_a.so)" "$ino" "rewrite: libhot_a.so is the same inode, with libhot_b.so's contents"
	bounded 60 pmclog record -F $HZ_REQ -o "$OUT/rw3.pmclog" -- /bin/dlswap $SWAP 1 \
		>"$OUT/rw3-record.out" 2>"$OUT/rw3-record.err"
	is "$?" 0 "rewrite: record 3 exits 0" || diag "$(tail -n 3 "$OUT/rw3-record.err")"
	dump_log "$OUT/rw3.pmclog" "$OUT/rw3.dump"
	check_ids "$OUT/rw3.dump" $SWAP/libhot_a.so "$idb" "rewritten in place"
else
	skip "rewrite: BUILDIDs of a file rewritten in place" "the host's readelf shows no two build-ids"
fi
rm -rf $SWAP

# ------------------------------------------------------------------
# The kernel and the modules loaded at START: the recorder's, from /sys

kmap=$(kv_awk -t MAP_IN "$OUT/dl.dump" '$1 == "MAP_IN" && f["path"] == "[kernel]" { print f["start"]; exit }')
kid=$(kv_awk -t BUILDID "$OUT/dl.dump" '$1 == "BUILDID" && f["pid"] == -1 && f["start"] == "'"$kmap"'" && f["synth"] == 1 { print f["build_id"]; exit }')
diag "[kernel] at $kmap: build-id ${kid:-none}"
if [ -n "$kmap" ] && [ -n "$kid" ]; then
	ok "the recorder adds the kernel's BUILDID"
else
	not_ok "the recorder adds the kernel's BUILDID"
fi
id=$(id_of pmclog)
if [ -n "$id" ]; then
	check_ids "$OUT/dl.dump" pmclog "$id" "START's modules"
else
	skip "START's modules: BUILDID of pmclog" "the host's readelf shows no build-id"
fi

# ------------------------------------------------------------------
# A module rebuilt and reloaded in the middle of the run

BUSY_MS=500
if [ -f "$TESTMOD" ] && [ -f "$REBUILT" ]; then
	record_two_loads "$OUT/km.pmclog" "$TESTMOD" "$REBUILT" $BUSY_MS $HZ_REQ
	is "$?" 0 "record a module and its rebuild exits 0" || diag "$(tail -n 3 "$OUT/km.pmclog-record.err")"
	dump_log "$OUT/km.pmclog" "$OUT/km.dump"
	buildids_of "$OUT/km.dump" pmclog_testmod 0x2 >"$OUT/km.ids"
	while read -r start id; do diag "pmclog_testmod at $start: build-id $id"; done <"$OUT/km.ids"
	is "$(awk 'NR == 1 { print $2 }' "$OUT/km.ids")" "$(id_of "$TESTMOD")" \
		"load 1: the BUILDID is the first build's"
	is "$(awk 'NR == 2 { print $2 }' "$OUT/km.ids")" "$(id_of "$REBUILT")" \
		"load 2: the BUILDID is the rebuild's"
	[ "$(awk 'NR == 1 { print $1 }' "$OUT/km.ids")" = "$(awk 'NR == 2 { print $1 }' "$OUT/km.ids")" ] &&
		diag "both builds were loaded at the same address"
	bounded 60 pmclog report -i "$OUT/km.pmclog" --format folded >"$OUT/km.folded" 2>"$OUT/km.err"
	is "$?" 0 "report of the module log exits 0" || diag "$(tail -n 3 "$OUT/km.err")"
	grep pmclog_testmod "$OUT/km.folded" | while IFS= read -r l; do diag "  $l"; done
	busy=$(awk '$0 ~ /^\[pmclog_testmod\];pmclog_testmod_busy / { n += $NF } END { print n + 0 }' "$OUT/km.folded")
	spin=$(awk '$0 ~ /^\[pmclog_testmod\];pmclog_testmod_spin / { n += $NF } END { print n + 0 }' "$OUT/km.folded")
	all=$(awk '$0 ~ /^\[pmclog_testmod\];/ { n += $NF } END { print n + 0 }' "$OUT/km.folded")
	diag "pmclog_testmod: $all samples, $busy in pmclog_testmod_busy, $spin in pmclog_testmod_spin"
	at_least "$busy" 10 "the first build's samples are named pmclog_testmod_busy"
	at_least "$spin" 10 "the rebuild's samples are named pmclog_testmod_spin"
	[ "$all" -gt 0 ] &&
		at_least $(((busy + spin) * 100 / all)) 90 "the module's samples are named by their own build (percent)"
	# Load by load (report --time over the window from the MAP_IN of
	# its core text to the MAP_OUT): that build's function, never the
	# other's.
	windows "$OUT/km.dump" 'f["pid"] == -1 && f["path"] == "pmclog_testmod" && f["flags"] == "0x2"' \
		>"$OUT/km.windows"
	is "$(wc -l <"$OUT/km.windows")" 2 "the module log has a MAP_IN/MAP_OUT window for each build"
	load=0
	while read -r _ from to; do
		load=$((load + 1))
		if [ $load = 1 ]; then own=busy other=spin; else own=spin other=busy; fi
		bounded 60 pmclog report -i "$OUT/km.pmclog" --format folded --time "$from,$to" \
			>"$OUT/km-$load.folded" 2>/dev/null
		n=$(awk -v k="[pmclog_testmod];pmclog_testmod_$own" '$1 == k { n += $NF } END { print n + 0 }' "$OUT/km-$load.folded")
		x=$(awk -v k="[pmclog_testmod];pmclog_testmod_$other" '$1 == k { n += $NF } END { print n + 0 }' "$OUT/km-$load.folded")
		diag "load $load, $from s to $to s: $n samples in pmclog_testmod_$own, $x in pmclog_testmod_$other"
		at_least "$n" 10 "load $load: samples named pmclog_testmod_$own"
		is "$x" 0 "load $load: no sample named after the other build's pmclog_testmod_$other"
	done <"$OUT/km.windows"
else
	skip "a module rebuilt and reloaded" "no $TESTMOD or $REBUILT in the initramfs"
fi
module_unload_check "rmmod pmclog"
