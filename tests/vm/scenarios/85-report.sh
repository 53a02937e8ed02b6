#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# pmclog report names the function of the samples: each dlopen()ed hot
# function in its own library (dlswap loads libhot_a.so, then libhot_b.so
# at the same address); the test module's busy function, over two loads,
# from the symbols the log carries (no .ko at hand); kernel functions of
# a syscall loop from the recorder's copy of /proc/kallsyms; objects
# copied under another root with -r.  A cut log and a corrupt one still
# give the profile before the damage, with their own exit statuses.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

LIBDIR=/lib/workloads
TESTMOD=/lib/modules/pmclog_testmod.ko
HZ_REQ=1000

# object_total FOLDED OBJECT: samples of OBJECT, whatever the symbol.
object_total() {
	awk -v o="$2;" 'substr($0, 1, length(o)) == o { n += $NF } END { print n + 0 }' "$1"
}

# report LOG NAME [ARGS...]: folded dso,sym report of LOG in $OUT/NAME.folded;
# the text report in NAME.txt (for people) and the statistics in NAME.err.
report() {
	_log=$1
	_name=$2
	shift 2
	bounded 60 pmclog report -i "$_log" --format folded "$@" >"$OUT/$_name.folded" 2>"$OUT/$_name.err"
	_rc=$?
	pmclog report -q -i "$_log" "$@" >"$OUT/$_name.txt" 2>/dev/null
	return $_rc
}

# ------------------------------------------------------------------
# dlopen / dlclose / dlopen at the same address

SECS=2
bounded 60 pmclog record -v -F $HZ_REQ -o "$OUT/dl.pmclog" -- /bin/dlswap $LIBDIR $SECS \
	>"$OUT/dl-record.out" 2>"$OUT/dl-record.err"
is "$?" 0 "record dlswap exits 0" || diag "$(tail -n 3 "$OUT/dl-record.err")"
diag "$(grep 'kernel text symbols' "$OUT/dl-record.err")"
report "$OUT/dl.pmclog" dl
is "$?" 0 "report of the dlswap log exits 0" || diag "$(tail -n 3 "$OUT/dl.err")"
total=$(folded_total "$OUT/dl.folded")
a=$(folded_count "$OUT/dl.folded" libhot_a.so hot_a)
b=$(folded_count "$OUT/dl.folded" libhot_b.so hot_b)
diag "dlswap: $total samples, hot_a in libhot_a.so $a, hot_b in libhot_b.so $b"
head -n 8 "$OUT/dl.txt" | while IFS= read -r l; do diag "  $l"; done
# Each phase is about half of the run, but on a busy host one may get
# much less CPU than the other (35% of the samples seen): each has at
# least 10% of them here; the windows below check the shares phase by
# phase.
if [ "$total" -gt 0 ]; then
	at_least $((a * 100 / total)) 10 "hot_a named in libhot_a.so: percent of all samples"
	at_least $((b * 100 / total)) 10 "hot_b named in libhot_b.so: percent of all samples"
else
	not_ok "the dlswap report has samples"
fi
cross=$(($(folded_count "$OUT/dl.folded" libhot_a.so hot_b) + $(folded_count "$OUT/dl.folded" libhot_b.so hot_a)))
is "$cross" 0 "no sample of one library is named after the other's function"

# Phase by phase (--time): the window from each library's MAP_IN to its
# MAP_OUT, in seconds after INITIALIZE; most of its samples are its hot
# function's.
pmclog dump -i "$OUT/dl.pmclog" >"$OUT/dl.dump" 2>/dev/null
windows "$OUT/dl.dump" 'f["path"] ~ /libhot_[ab]\.so$/' >"$OUT/dl.windows"
is "$(wc -l <"$OUT/dl.windows")" 2 "the dlswap log has a MAP_IN/MAP_OUT window for each library"
while read -r path from to; do
	lib=${path##*libhot_}
	lib=${lib%.so}
	report "$OUT/dl.pmclog" "dl-$lib" --time "$from,$to"
	n=$(folded_count "$OUT/dl-$lib.folded" "libhot_$lib.so" "hot_$lib")
	all=$(folded_total "$OUT/dl-$lib.folded")
	diag "libhot_$lib.so mapped from $from s to $to s: $n of $all samples in hot_$lib"
	if [ "$all" -gt 0 ]; then
		at_least $((n * 100 / all)) 80 "while libhot_$lib.so was mapped, hot_$lib has most samples (percent)"
	else
		not_ok "the report of libhot_$lib.so's window has samples"
	fi
done <"$OUT/dl.windows"

# ------------------------------------------------------------------
# The test module: two loads, no .ko at report time

BUSY_MS=500
if [ -f "$TESTMOD" ]; then
	record_two_loads "$OUT/km.pmclog" "$TESTMOD" "$TESTMOD" $BUSY_MS $HZ_REQ
	is "$?" 0 "record two loads of the test module exits 0" || diag "$(tail -n 3 "$OUT/km.pmclog-record.err")"
	report "$OUT/km.pmclog" km
	is "$?" 0 "report of the module log exits 0" || diag "$(tail -n 3 "$OUT/km.err")"
	busy=$(folded_count "$OUT/km.folded" "[pmclog_testmod]" pmclog_testmod_busy)
	want=$((2 * BUSY_MS * HZ_REQ / 1000))
	diag "test module: pmclog_testmod_busy $busy samples of about $want taken while it ran"
	grep pmclog_testmod "$OUT/km.txt" | head -n 4 | while IFS= read -r l; do diag "  $l"; done
	# Load by load (--time, the window from the core text's MAP_IN to
	# its MAP_OUT): the module's samples are named, and mostly in the
	# busy function.  Shares, not counts: how many samples BUSY_MS gives
	# depends on how loaded the host is (20-system has the band).
	pmclog dump -i "$OUT/km.pmclog" >"$OUT/km.dump" 2>/dev/null
	windows "$OUT/km.dump" 'f["pid"] == -1 && f["path"] == "pmclog_testmod" && f["flags"] == "0x2"' \
		>"$OUT/km.windows"
	is "$(wc -l <"$OUT/km.windows")" 2 "the module log has a MAP_IN/MAP_OUT window for each load"
	load=0
	while read -r _ from to; do
		load=$((load + 1))
		report "$OUT/km.pmclog" "km-$load" --time "$from,$to"
		n=$(folded_count "$OUT/km-$load.folded" "[pmclog_testmod]" pmclog_testmod_busy)
		all=$(object_total "$OUT/km-$load.folded" "[pmclog_testmod]")
		diag "load $load, $from s to $to s: $n of the module's $all samples in pmclog_testmod_busy"
		at_least "$all" 10 "load $load: samples in [pmclog_testmod] (no .ko at hand)"
		[ "$all" -gt 0 ] &&
			at_least $((n * 100 / all)) 80 "load $load: pmclog_testmod_busy has most of them (percent)"
	done <"$OUT/km.windows"
else
	skip "test module samples named" "no $TESTMOD in the initramfs"
fi

# ------------------------------------------------------------------
# Kernel functions of a syscall loop, from the recorder's kallsyms

# Compressed (-z): the cut compressed log below is this one, cut.
bounded 60 pmclog record -z -F $HZ_REQ -o "$OUT/sc.pmclog" -- /bin/syscalls 2 \
	>"$OUT/sc-record.out" 2>"$OUT/sc-record.err"
is "$?" 0 "record syscalls exits 0" || diag "$(tail -n 3 "$OUT/sc-record.err")"
report "$OUT/sc.pmclog" sc --sort dso,sym
is "$?" 0 "report of the syscalls log exits 0" || diag "$(tail -n 3 "$OUT/sc.err")"
kall=$(awk '/^\[kernel\]/ { n += $NF } END { print n + 0 }' "$OUT/sc.folded")
knamed=$(awk '/^\[kernel\];/ && !/;0x[0-9a-f]* [0-9]*$/ { n += $NF } END { print n + 0 }' "$OUT/sc.folded")
diag "syscalls: $kall samples in [kernel], $knamed in named functions"
head -n 8 "$OUT/sc.txt" | while IFS= read -r l; do diag "  $l"; done
at_least "$kall" 500 "the syscall loop has kernel samples"
[ "$kall" -gt 0 ] && at_least $((knamed * 100 / kall)) 95 "kernel samples land in named kernel functions (percent)"

# The same without the symbols: the kernel is named by address only.
# Saved uncompressed: the cut and corrupt logs below are cut by offset.
bounded 60 pmclog record --no-kallsyms --compression-level 0 -F $HZ_REQ \
	-o "$OUT/sc-nok.pmclog" -- /bin/syscalls 1 \
	>/dev/null 2>"$OUT/sc-nok-record.err"
report "$OUT/sc-nok.pmclog" sc-nok
nk=$(grep -c '^\[kernel\];0x' "$OUT/sc-nok.folded")
at_least "$nk" 1 "--no-kallsyms: kernel samples are [kernel] + address"
# Not found is said apart from the name, in a column after it.
nkt=$(grep -c ' \[kernel\]  *\[k\] 0x[0-9a-f]*  (object not found)$' "$OUT/sc-nok.txt")
at_least "$nkt" 1 "--no-kallsyms: the table says [kernel] was not found, after the names"
s1=$(wc -c <"$OUT/sc.pmclog")
s0=$(wc -c <"$OUT/sc-nok.pmclog")
diag "log size with kallsyms $s1 bytes (zstd, -z), without and uncompressed $s0"
# The recorder saves only the functions the kernel samples fell in (a
# few dozen here), not all of /proc/kallsyms (about 47,000).
pmclog dump -i "$OUT/sc.pmclog" >"$OUT/sc.dump" 2>/dev/null
nsym=$(grep -c '^KSYMBOL .* synth=1 ' "$OUT/sc.dump")
in_band "$nsym" 1 2000 "the log holds the sampled kernel functions' symbols, not all of kallsyms"
is "$(tail -n 1 "$OUT/sc.dump" | cut -d' ' -f1)" CLOSELOG "CLOSELOG is still the last record"

# ------------------------------------------------------------------
# -r: the objects copied under another root

mkdir -p /tmp/app "$OUT/root/tmp/app"
cp /bin/busy /tmp/app/busy
bounded 60 pmclog record -F $HZ_REQ -o "$OUT/busy.pmclog" -- /tmp/app/busy 1 \
	>/dev/null 2>"$OUT/busy-record.err"
mv /tmp/app/busy "$OUT/root/tmp/app/busy"
report "$OUT/busy.pmclog" busy-noroot
nf=$(folded_count "$OUT/busy-noroot.folded" busy busy_loop)
gone=$(grep -c ' busy  *\[\.\] 0x[0-9a-f]*  (object not found)$' "$OUT/busy-noroot.txt")
at_least "$gone" 1 "without -r the moved program is busy, not found"
report "$OUT/busy.pmclog" busy-root -r "$OUT/root"
bl=$(folded_count "$OUT/busy-root.folded" busy busy_loop)
bt=$(folded_total "$OUT/busy-root.folded")
diag "-r: busy_loop $bl of $bt samples ($nf named without -r)"
[ "$bt" -gt 0 ] && at_least $((bl * 100 / bt)) 80 "-r ROOT: busy_loop named in busy (percent)"

# ------------------------------------------------------------------
# JSON, a cut log, a corrupt one

pmclog report -q -i "$OUT/dl.pmclog" --format json >"$OUT/dl.json" 2>"$OUT/dl-json.err"
is "$?" 0 "--format json exits 0"
grep -q '"symbol": "hot_a"' "$OUT/dl.json" && grep -q '"resolved":' "$OUT/dl.json"
is "$?" 0 "json has the rows and the statistics"

# The log without kallsyms: its samples start near the beginning.
size=$(wc -c <"$OUT/sc-nok.pmclog")
# Inside a record (records are 8-byte aligned).
head -c $((size * 2 / 3 / 8 * 8 + 4)) "$OUT/sc-nok.pmclog" >"$OUT/cut.pmclog"
report "$OUT/cut.pmclog" cut
is "$?" 76 "a cut log: exit status EX_PROTOCOL (76)"
grep -q 'truncated at offset [0-9]*' "$OUT/cut.err"
is "$?" 0 "a cut log: says where it stops" || diag "$(tail -n 2 "$OUT/cut.err")"
at_least "$(folded_total "$OUT/cut.folded")" 1 "a cut log: the samples before the cut are reported"

cp "$OUT/sc-nok.pmclog" "$OUT/bad.pmclog"
# Byte 0 of the third record (INITIALIZE 56 + PMCALLOCATE 72 = 128).
printf '\000' | dd of="$OUT/bad.pmclog" bs=1 seek=128 conv=notrunc 2>/dev/null
report "$OUT/bad.pmclog" bad
is "$?" 65 "a corrupt record: exit status EX_DATAERR (65)"
grep -q 'corrupt record at offset 128: bad record magic' "$OUT/bad.err"
is "$?" 0 "a corrupt record: names its offset and why" || diag "$(tail -n 2 "$OUT/bad.err")"

# A compressed log (-z) cut short, as a killed recorder leaves
# it, and one damaged inside: the samples before, and the reason.
head -c "$(( $(wc -c <"$OUT/sc.pmclog") * 2 / 3 ))" "$OUT/sc.pmclog" >"$OUT/zcut.pmclog"
report "$OUT/zcut.pmclog" zcut
is "$?" 76 "a cut compressed log: exit status EX_PROTOCOL (76)"
grep -q 'truncated at offset [0-9]*: the compressed log ends inside a zstd frame, at byte [0-9]* of the file' "$OUT/zcut.err"
is "$?" 0 "a cut compressed log: says where it stops" || diag "$(tail -n 2 "$OUT/zcut.err")"
at_least "$(folded_total "$OUT/zcut.folded")" 1 "a cut compressed log: the samples before the cut are reported"

