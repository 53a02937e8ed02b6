#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# pmclog record -g: the stacks of the samples (CALLCHAIN).  callpaths'
# main() calls path_a() and path_b(), each the same hot(), path_a() with
# twice the work: both paths show under hot() with about their shares,
# in report --format folded, in -G's callgraph tree and in the data of
# pmclog flamegraph's page; report --format chrome-trace puts the samples
# on callpaths' thread, and dlswap's libraries' MAP_IN, samples and
# MAP_OUT on its own, in order.  A read(2) loop's
# kernel samples carry their user frames (the user side outermost); the
# test module's busy function shows under its write(2) path; the same
# paths in system mode (-a).  A log without -g has no CALLCHAIN (its size
# per sample unchanged), one with it a CALLCHAIN per sample; what -g
# costs per sample is measured.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

TESTMOD=/lib/modules/pmclog_testmod.ko
HZ_REQ=1000

# stacks_with FOLDED SUFFIX: samples of the stacks that end with SUFFIX
# (";path_a;hot").
stacks_with() {
	awk -v s="$2" '{ c = $NF; k = substr($0, 1, length($0) - length(c) - 1) }
		length(k) >= length(s) && substr(k, length(k) - length(s) + 1) == s { n += c }
		END { print n + 0 }' "$1"
}
total_of() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

# cc_bytes DUMP: "SAMPLES CALLCHAINS BYTES" of a dump: CALLCHAIN records
# are 32 bytes and 8 per frame (pmclog.h).
cc_bytes() {
	awk '$1 == "PCSAMPLE" { s++ }
	     $1 == "CALLCHAIN" { c++; n = 0
		for (i = 2; i <= NF; i++)
			if ($i ~ /^(kernel|user)=0x/) n += gsub(/0x/, "", $i)
		b += 32 + 8 * n }
	     END { print s + 0, c + 0, b + 0 }' "$1"
}

# ------------------------------------------------------------------
# Two paths to one hot function

bounded 60 pmclog record -g -F $HZ_REQ -o "$OUT/cp.pmclog" -- /bin/callpaths 3 \
	>"$OUT/cp-record.out" 2>"$OUT/cp-record.err"
is "$?" 0 "record -g callpaths exits 0" || diag "$(tail -n 3 "$OUT/cp-record.err")"
bounded 60 pmclog report -i "$OUT/cp.pmclog" --format folded >"$OUT/cp.folded" 2>"$OUT/cp.err"
is "$?" 0 "report --format folded of the -g log exits 0" || diag "$(tail -n 3 "$OUT/cp.err")"
total=$(total_of "$OUT/cp.folded")
a=$(stacks_with "$OUT/cp.folded" ";main;path_a;hot")
b=$(stacks_with "$OUT/cp.folded" ";main;path_b;hot")
diag "callpaths: $total samples with stacks; main;path_a;hot $a, main;path_b;hot $b"
sort -k2 -n -r -t' ' "$OUT/cp.folded" | head -n 5 | while IFS= read -r l; do diag "  $l"; done
at_least "$total" 300 "the -g log's samples have stacks"
if [ "$total" -gt 0 ]; then
	# 2:1 in work: 67% and 33% of the samples (perf on the build host:
	# 67.0% and 32.9%); the bands leave room for a noisy host.
	in_band $((a * 100 / total)) 50 85 "hot() under main;path_a has about 2/3 of the samples (percent)"
	in_band $((b * 100 / total)) 15 45 "hot() under main;path_b has about 1/3 of the samples (percent)"
fi
comm_ok=$(awk -F';' '$1 != "callpaths" { bad++ } END { print bad + 0 }' "$OUT/cp.folded")
is "$comm_ok" 0 "every folded stack starts with the process's name"

bounded 60 pmclog report -i "$OUT/cp.pmclog" -G "$OUT/cp.graph" -q >/dev/null 2>"$OUT/cp-graph.err"
is "$?" 0 "report -G FILE exits 0" || diag "$(tail -n 3 "$OUT/cp-graph.err")"
while IFS= read -r l; do diag "  $l"; done <"$OUT/cp.graph"
# The callers tree: hot at the top, path_a and path_b one level below,
# main below each.
top=$(awk 'NR > 2 && /^[0-9]/ { print; exit }' "$OUT/cp.graph")
case $top in
*" hot @ "*) ok "-G: the hottest function heads the tree" ;;
*) not_ok "-G: the hottest function heads the tree"; diag "  got '$top'" ;;
esac
ga=$(awk '/^ [0-9.]+% +\[[0-9]+\] +path_a( @ .*)?$/ { sub(/%.*/, ""); print int($1); exit }' "$OUT/cp.graph")
gb=$(awk '/^ [0-9.]+% +\[[0-9]+\] +path_b( @ .*)?$/ { sub(/%.*/, ""); print int($1); exit }' "$OUT/cp.graph")
diag "-G: hot's callers path_a ${ga:-?}%, path_b ${gb:-?}%"
in_band "${ga:-x}" 50 85 "-G: path_a is hot's caller for about 2/3 of its samples (percent)"
in_band "${gb:-x}" 15 45 "-G: path_b is hot's caller for about 1/3 of its samples (percent)"
# In hot's tree (up to the blank line after it).
mains=$(awk '/ hot @ / { t = 1; next } t && !NF { exit }
	t && /^  [0-9.]+% +\[[0-9]+\] +main$/ { n++ } END { print n + 0 }' "$OUT/cp.graph")
is "$mains" 2 "-G: main calls both paths"

# ------------------------------------------------------------------
# The flame graph of the same log: its embedded data, read back with awk
# (no browser here; tests/unit/check_flamegraph.sh renders one), has the
# frames of the folded stacks with the same samples.

# flame_paths HTML: "EVENT PATH SAMPLES" for each frame of the page's
# data (pmclog_callgraph__print_flame_json()): PATH as folded's, without
# its "_[k]" suffixes.
flame_paths() {
	awk '/<script type="application\/json" id="pmclog-data">/ { on = 1; sub(/.*id="pmclog-data">/, "") }
	on { i = index($0, "</script>"); if (i) { data = data substr($0, 1, i - 1); on = 0 } else data = data $0 }
	END {
		s = data; d = 0; ev = 0
		while (s != "") {
			o = match(s, /\{"name":"([^"\\]|\\.)*"/); p = RSTART; l = RLENGTH
			c = index(s, "]}")
			if (o && (!c || p < c)) {
				path[d] = substr(s, p + 9, l - 10)
				s = substr(s, p + l)
				match(s, /"value":[0-9]+/)
				if (d == 0) ev++
				if (d > 0) {
					line = path[1]
					for (j = 2; j <= d; j++) line = line ";" path[j]
					print ev, line, substr(s, RSTART + 8, RLENGTH - 8)
				}
				d++
			} else if (c) {
				d--; s = substr(s, c + 2)
			} else s = ""
		}
	}' "$1"
}
# stacks_through FOLDED PART: samples of the stacks that go through PART
# (";main;path_a;hot", and maybe frames below it), "_[k]" suffixes gone.
stacks_through() {
	awk -v s="$2;" '{ c = $NF; k = substr($0, 1, length($0) - length(c) - 1) ";"
		gsub(/_\[k\];/, ";", k) } index(k, s) { n += c } END { print n + 0 }' "$1"
}
# flame_with PATHS SUFFIX: samples of the frames whose path ends with SUFFIX.
flame_with() {
	awk -v s="$2" 'length($2) >= length(s) && substr($2, length($2) - length(s) + 1) == s { n += $3 }
		END { print n + 0 }' "$1"
}

bounded 60 pmclog flamegraph -q -i "$OUT/cp.pmclog" -o "$OUT/cp.html" 2>"$OUT/cp-flame.err"
is "$?" 0 "flamegraph of the -g log exits 0" || diag "$(tail -n 3 "$OUT/cp-flame.err")"
flame_paths "$OUT/cp.html" >"$OUT/cp.flame"
fa=$(flame_with "$OUT/cp.flame" ";main;path_a;hot")
fb=$(flame_with "$OUT/cp.flame" ";main;path_b;hot")
fpa=$(flame_with "$OUT/cp.flame" ";main;path_a")
fpb=$(flame_with "$OUT/cp.flame" ";main;path_b")
fmain=$(flame_with "$OUT/cp.flame" ";main")
ftotal=$(awk -F' ' 'index($2, ";") == 0 { n += $3 } END { print n + 0 }' "$OUT/cp.flame")
diag "flame graph: $ftotal samples; main $fmain, main;path_a $fpa (hot $fa), main;path_b $fpb (hot $fb); $(wc -l <"$OUT/cp.flame") frames, $(wc -c <"$OUT/cp.html") bytes"
is "$ftotal" "$total" "flame graph: its processes hold the folded stacks' samples"
# A frame's samples are those of the stacks through it (the timer
# interrupt's kernel frames can sit below hot).
is "$fa" "$(stacks_through "$OUT/cp.folded" ";main;path_a;hot")" "flame graph: main;path_a;hot has the samples of folded's stacks through it"
is "$fb" "$(stacks_through "$OUT/cp.folded" ";main;path_b;hot")" "flame graph: main;path_b;hot has the samples of folded's stacks through it"
is "$fmain" "$(stacks_through "$OUT/cp.folded" ";main")" "flame graph: main has the samples of folded's stacks through it"
at_least "$fmain" $((a + b)) "flame graph: main holds both paths"
at_least "$fpa" "$fa" "flame graph: path_a holds its hot"
at_least "$fpb" "$fb" "flame graph: path_b holds its hot"
if [ "$ftotal" -gt 0 ]; then
	in_band $((fa * 100 / ftotal)) 50 85 "flame graph: main;path_a;hot about 2/3 of the samples (percent)"
	in_band $((fb * 100 / ftotal)) 15 45 "flame graph: main;path_b;hot about 1/3 of the samples (percent)"
fi
ext=$(grep -Eic '<script[^>]+src|<link|https?:' "$OUT/cp.html")
is "$ext" 0 "flame graph: the page refers to nothing outside it"

# ------------------------------------------------------------------
# The same log over time: report --format chrome-trace, one event a line.

bounded 60 pmclog report -q -i "$OUT/cp.pmclog" --format chrome-trace >"$OUT/cp.trace" 2>"$OUT/cp-trace.err"
is "$?" 0 "report --format chrome-trace exits 0" || diag "$(tail -n 3 "$OUT/cp-trace.err")"
cpid=$(awk '/"name":"thread_name"/ && /"args":\{"name":"callpaths"\}/ {
	sub(/.*"pid":/, ""); sub(/,.*/, ""); print; exit }' "$OUT/cp.trace")
diag "chrome-trace: $(wc -l <"$OUT/cp.trace") lines, callpaths is pid ${cpid:-?}"
# its_lines PATTERN: the trace's lines of callpaths' pid that match PATTERN.
its_lines() {
	grep -F "\"pid\":${cpid:-x}," "$OUT/cp.trace" | grep -c -E "$1"
}
tsamples=$(its_lines '"cat":"sample".*"sf":')
thot=$(its_lines '^\{"name":"hot","cat":"sample"')
diag "chrome-trace: callpaths' samples with a stack $tsamples, in hot $thot; $(its_lines '"cat":"map"') map events: $(grep -F "\"pid\":${cpid:-x}," "$OUT/cp.trace" | grep -o '"name":"MAP_IN [^"]*"' | sort -u | tr '\n' ' ')"
is "$tsamples" "$total" "chrome-trace: callpaths' thread has every sample with a stack of the folded output"
at_least "$thot" $((a + b)) "chrome-trace: callpaths' samples in hot are there"
at_least "$(its_lines '^\{"name":"MAP_IN callpaths","cat":"map","ph":"i","s":"p"')" 1 "chrome-trace: callpaths' own MAP_IN is an instant event of its process"

# Libraries over time: dlswap dlopen()s libhot_a.so, spins in hot_a(),
# dlclose()s it, then the same with libhot_b.so.
bounded 60 pmclog record -g -F $HZ_REQ -o "$OUT/dl.pmclog" -- /bin/dlswap /lib/workloads 1 \
	>/dev/null 2>"$OUT/dl-record.err"
is "$?" 0 "record -g dlswap exits 0" || diag "$(tail -n 3 "$OUT/dl-record.err")"
bounded 60 pmclog report -q -i "$OUT/dl.pmclog" --format chrome-trace >"$OUT/dl.trace" 2>"$OUT/dl-trace.err"
is "$?" 0 "chrome-trace of the dlswap log exits 0" || diag "$(tail -n 3 "$OUT/dl-trace.err")"
dpid=$(awk '/"name":"thread_name"/ && /"args":\{"name":"dlswap"\}/ {
	sub(/.*"pid":/, ""); sub(/,.*/, ""); print; exit }' "$OUT/dl.trace")
# dl_line PATTERN: the line number of the first of dlswap's events matching PATTERN.
dl_line() {
	grep -n -F "\"pid\":${dpid:-x}," "$OUT/dl.trace" | grep -E "$1" | head -n 1 | cut -d: -f1
}
ina=$(dl_line '"name":"MAP_IN libhot_a\.so","cat":"map","ph":"i","s":"p"')
outa=$(dl_line '"name":"MAP_OUT libhot_a\.so","cat":"map"')
inb=$(dl_line '"name":"MAP_IN libhot_b\.so","cat":"map"')
ha=$(dl_line '"name":"hot_a","cat":"sample".*"sf":')
hb=$(dl_line '"name":"hot_b","cat":"sample".*"sf":')
diag "chrome-trace of dlswap (pid ${dpid:-?}), lines: MAP_IN libhot_a ${ina:-none}, first hot_a sample ${ha:-none}, MAP_OUT libhot_a ${outa:-none}, MAP_IN libhot_b ${inb:-none}, first hot_b sample ${hb:-none}"
at_least "$(dl_line '"name":"MAP_IN libc\.so[^"]*","cat":"map","ph":"i","s":"p"')" 1 "chrome-trace: dlswap's libc MAP_IN is an instant event of its process"
if [ -n "$ina" ] && [ -n "$ha" ] && [ -n "$outa" ] && [ -n "$inb" ] && [ -n "$hb" ] &&
   [ "$ina" -lt "$ha" ] && [ "$ha" -lt "$outa" ] && [ "$outa" -lt "$inb" ] && [ "$inb" -lt "$hb" ]; then
	ok "chrome-trace: libhot_a mapped, its hot_a sampled with stacks, unmapped, then libhot_b and hot_b, in that order"
else
	not_ok "chrome-trace: libhot_a mapped, its hot_a sampled with stacks, unmapped, then libhot_b and hot_b, in that order"
fi

# ------------------------------------------------------------------
# System mode: every process's stacks, callpaths' among them

bounded 60 pmclog record -a -g -F $HZ_REQ -o "$OUT/sys.pmclog" -- /bin/callpaths 2 \
	>/dev/null 2>"$OUT/sys-record.err"
is "$?" 0 "record -a -g exits 0" || diag "$(tail -n 3 "$OUT/sys-record.err")"
bounded 60 pmclog report -i "$OUT/sys.pmclog" --format folded >"$OUT/sys.folded" 2>"$OUT/sys.err"
is "$?" 0 "report of the -a -g log exits 0" || diag "$(tail -n 3 "$OUT/sys.err")"
sa=$(stacks_with "$OUT/sys.folded" ";main;path_a;hot")
sb=$(stacks_with "$OUT/sys.folded" ";main;path_b;hot")
stotal=$(total_of "$OUT/sys.folded")
diag "-a -g: $stotal samples with stacks; callpaths' main;path_a;hot $sa, main;path_b;hot $sb"
at_least "$sb" 50 "-a -g: callpaths' main;path_b;hot has samples"
[ "$sb" -gt 0 ] && in_band $((sa * 100 / (sa + sb))) 50 85 "-a -g: path_a's share of hot() is about 2/3 (percent)"

# ------------------------------------------------------------------
# Bytes per sample, with and without -g

bounded 60 pmclog record -F $HZ_REQ -o "$OUT/cp0.pmclog" -- /bin/callpaths 2 \
	>/dev/null 2>"$OUT/cp0-record.err"
is "$?" 0 "record callpaths without -g exits 0"
dump_log "$OUT/cp0.pmclog" "$OUT/cp0.dump"
dump_log "$OUT/cp.pmclog" "$OUT/cp.dump"
set -- $(cc_bytes "$OUT/cp0.dump")
is "$2" 0 "without -g: no CALLCHAIN records"
s0=$1
set -- $(cc_bytes "$OUT/cp.dump")
s1=$1 c1=$2 b1=$3
drops=$(grep -c '^DROPNOTIFY' "$OUT/cp.dump")
if [ "$drops" = 0 ]; then
	is "$c1" "$s1" "with -g: a CALLCHAIN for every PCSAMPLE"
else
	skip "with -g: a CALLCHAIN for every PCSAMPLE" "$drops DROPNOTIFY in the log"
fi
size0=$(wc -c <"$OUT/cp0.pmclog")
size1=$(wc -c <"$OUT/cp.pmclog")
[ "$s1" -gt 0 ] && diag "bytes per sample: PCSAMPLE 32; with -g +$((b1 / s1)) (CALLCHAIN, $c1 of them, $b1 bytes); whole logs: $((size0 / (s0 ? s0 : 1))) without -g ($s0 samples), $((size1 / s1)) with ($s1 samples)"
kv_awk -t CALLCHAIN "$OUT/cp.dump" '$1 == "CALLCHAIN" { n++; if (f["flags"] != "0x0") bad++ } END { printf "%d of %d CALLCHAINs flagged\n", bad, n }' |
	while IFS= read -r l; do diag "  $l"; done

# ------------------------------------------------------------------
# read(2): kernel frames above the user ones

bounded 60 pmclog record -g -F $HZ_REQ -o "$OUT/rd.pmclog" -- /bin/callpaths -r 2 \
	>/dev/null 2>"$OUT/rd-record.err"
is "$?" 0 "record -g of a read(2) loop exits 0" || diag "$(tail -n 3 "$OUT/rd-record.err")"
bounded 60 pmclog report -i "$OUT/rd.pmclog" --format folded >"$OUT/rd.folded" 2>"$OUT/rd.err"
is "$?" 0 "report of the read loop exits 0" || diag "$(tail -n 3 "$OUT/rd.err")"
sort -k2 -n -r -t' ' "$OUT/rd.folded" | head -n 5 | while IFS= read -r l; do diag "  $l"; done
# Kernel-leaf stacks, and those of them whose user side goes up to main.
kleaf=$(awk '$0 ~ /_\[k\] [0-9]+$/ { n += $NF } END { print n + 0 }' "$OUT/rd.folded")
kmain=$(awk '$0 ~ /_\[k\] [0-9]+$/ && $0 ~ /;main;/ { n += $NF } END { print n + 0 }' "$OUT/rd.folded")
diag "read loop: $kleaf samples in the kernel, $kmain of them below main"
at_least "$kleaf" 100 "the read loop's samples are mostly in the kernel, with stacks"
[ "$kleaf" -gt 0 ] &&
	at_least $((kmain * 100 / kleaf)) 80 "kernel samples of the read loop carry their user frames up to main (percent)"
# No user frame above a kernel one: the kernel's frames are innermost.
mixed=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); k = 0
	for (i = 2; i <= n; i++) { if (f[i] ~ /_\[k\]$/) k = 1; else if (k) { bad++; break } } }
	END { print bad + 0 }' "$OUT/rd.folded")
is "$mixed" 0 "in every stack the user frames are outer, the kernel frames inner"
# The rest is the syscall's entry and exit (79% through them seen).
sys=$(awk '$0 ~ /_\[k\] [0-9]+$/ && $0 ~ /(ksys_read|vfs_read)_\[k\]/ { n += $NF } END { print n + 0 }' "$OUT/rd.folded")
[ "$kleaf" -gt 0 ] &&
	at_least $((sys * 100 / kleaf)) 60 "the kernel side goes through vfs_read or ksys_read (percent)"

# ------------------------------------------------------------------
# The test module's busy function, under its write(2)

BUSY_MS=400
if [ -f "$TESTMOD" ]; then
	insmod "$TESTMOD" || bail "insmod $TESTMOD"
	grep -E '\[pmclog_testmod\]' /proc/kallsyms >"$OUT/km.kallsyms"
	grep pmclog_testmod /proc/modules >>"$OUT/km.kallsyms"
	bounded 60 pmclog record -g -F $HZ_REQ -o "$OUT/km.pmclog" -- \
		sh -c "echo $BUSY_MS >/proc/pmclog_testmod" >/dev/null 2>"$OUT/km-record.err"
	is "$?" 0 "record -g of a write to the test module exits 0" || diag "$(tail -n 3 "$OUT/km-record.err")"
	rmmod pmclog_testmod
	bounded 60 pmclog report -i "$OUT/km.pmclog" --format folded >"$OUT/km.folded" 2>"$OUT/km.err"
	is "$?" 0 "report of the module log exits 0" || diag "$(tail -n 3 "$OUT/km.err")"
	sort -k2 -n -r -t' ' "$OUT/km.folded" | head -n 3 | while IFS= read -r l; do diag "  $l"; done
	busy=$(stacks_with "$OUT/km.folded" ";pmclog_testmod_busy_[k]")
	under=$(awk '/;pmclog_testmod_write_\[k\];pmclog_testmod_busy_\[k\] [0-9]+$/ && /;(vfs|ksys)_write_\[k\];/ { n += $NF } END { print n + 0 }' "$OUT/km.folded")
	diag "test module: $busy samples in pmclog_testmod_busy, $under of them under vfs_write/ksys_write -> pmclog_testmod_write"
	at_least "$busy" $((BUSY_MS * HZ_REQ / 1000 / 4)) "the test module's busy function has samples with stacks"
	[ "$busy" -gt 0 ] &&
		at_least $((under * 100 / busy)) 80 "pmclog_testmod_busy shows under write(2) -> pmclog_testmod_write (percent)"
else
	skip "the test module's busy function under write(2)" "no $TESTMOD"
fi

module_unload_check "rmmod pmclog after the -g recordings"
kernel_log_clean
