# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# TAP helpers for the scenarios, inside the VM (busybox sh).  /init sets
# SCENARIO (e.g. 20-system) and OUT (/out/20-system, where artefacts go:
# they come back to the host in build/vm/results/<release>/).
#
# Every result line is "ok N - SCENARIO: what" or "not ok N - ...": the
# host matches these on the console and renumbers them across kernels.
# N counts over the whole boot (the counter lives in /run/tap).

: "${SCENARIO:=adhoc}"
: "${OUT:=/out/$SCENARIO}"
PMCLOG_KO=${PMCLOG_KO:-/lib/modules/pmclog.ko}
TAP_DIR=/run/tap
mkdir -p "$TAP_DIR" "$OUT"
# Results go to the console even from inside a function whose output a
# scenario redirects to a file.
exec 3>&1
# Where this scenario's part of the kernel log starts (kernel_log_clean).
echo "pmclog-vm: $SCENARIO: begin" >/dev/kmsg 2>/dev/null

_tap_emit() {
	# $1: "ok" or "not ok"; $2: description (with any "# SKIP ...")
	_n=$(($(cat "$TAP_DIR/count" 2>/dev/null || echo 0) + 1))
	echo "$_n" >"$TAP_DIR/count"
	echo "$1 $_n - $SCENARIO: ${SUBSCENARIO:+$SUBSCENARIO: }$2" | tee -a "$OUT/tap.txt" >&3
	echo "$1" >>"$TAP_DIR/$SCENARIO"
}

diag() { echo "# $SCENARIO: $*" | tee -a "$OUT/tap.txt" >&3; }
ok() { _tap_emit ok "$*"; }
not_ok() { _tap_emit "not ok" "$*"; }
skip() { _what=$1; shift; _tap_emit ok "$_what # SKIP $*"; }

# check DESC CMD ARGS...: ok when the command succeeds.
check() {
	_what=$1
	shift
	if "$@"; then ok "$_what"; else not_ok "$_what"; return 1; fi
}

# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3"
		diag "  got '$1', want '$2'"
		return 1
	fi
}

# in_band VALUE LOW HIGH DESC: LOW <= VALUE <= HIGH, integers.
in_band() {
	case $1 in '' | *[!0-9]*)
		not_ok "$4"
		diag "  '$1' is not a number (band $2..$3)"
		return 1
		;;
	esac
	if [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then
		ok "$4 ($1 in $2..$3)"
	else
		not_ok "$4"
		diag "  $1 not in $2..$3"
		return 1
	fi
}

# at_least VALUE MIN DESC
at_least() {
	case $1 in '' | *[!0-9]*)
		not_ok "$3"
		diag "  '$1' is not a number (want >= $2)"
		return 1
		;;
	esac
	if [ "$1" -ge "$2" ]; then ok "$3 ($1)"; else
		not_ok "$3"
		diag "  $1 < $2"
		return 1
	fi
}

# bail REASON: the rest of the scenario cannot run; counts as a failure.
bail() {
	not_ok "$*"
	exit 1
}

# ------------------------------------------------------------------
# The module and the tool

have_module() { [ -f "$PMCLOG_KO" ]; }
have_tool() { command -v pmclog >/dev/null 2>&1; }

require_module() {
	have_module || bail "prerequisite: $PMCLOG_KO is in the initramfs (did the module build?)"
}

require_tool() {
	have_tool || bail "prerequisite: pmclog tool is in the initramfs (did tools/pmclog build?)"
}

module_loaded() { grep -q '^pmclog ' /proc/modules; }

# on_cpu1 PID WHAT: pin PID to CPU 1 where there is one, for scenarios
# that churn there while CPU 0 starts, stops or loads.
on_cpu1() {
	[ "$(grep -c '^processor' /proc/cpuinfo)" -gt 1 ] || return 0
	taskset -p 2 "$1" >/dev/null 2>&1 || diag "cannot pin $2 to CPU 1"
}

# module_load [PARAM=VALUE ...]: a fresh instance with these parameters.
# With PMCLOG_COLLECTOR=bpf (run_with_bpf), the scenario runs against the
# BPF collector instead: the module is taken out, and pmclog record,
# finding no /dev/pmclog, records through BPF by itself.
module_load() {
	if [ "${PMCLOG_COLLECTOR:-module}" = bpf ]; then
		if module_loaded && ! rmmod pmclog 2>"$OUT/rmmod.err"; then
			diag "rmmod before a BPF run failed: $(cat "$OUT/rmmod.err")"
			return 1
		fi
		[ $# = 0 ] || diag "module parameters do not apply to BPF: $*"
		return 0
	fi
	if module_loaded && ! rmmod pmclog 2>"$OUT/rmmod.err"; then
		diag "rmmod before reload failed: $(cat "$OUT/rmmod.err")"
		return 1
	fi
	if ! insmod "$PMCLOG_KO" "$@" 2>"$OUT/insmod.err"; then
		diag "insmod $PMCLOG_KO $*: $(cat "$OUT/insmod.err")"
		return 1
	fi
	# devtmpfs creates the node synchronously with misc_register; wait a
	# little anyway in case a later module creates it asynchronously.
	wait_for 5 test -c /dev/pmclog
}

# module_unload_check DESC: rmmod pmclog, with up to 5 s of retries (the
# last fput of a killed recorder runs before it is reaped, so none should
# be needed), as one check that says how many it took.
module_unload_check() {
	_tries=0
	until rmmod pmclog 2>"$OUT/rmmod.err"; do
		_tries=$((_tries + 1))
		[ "$_tries" -lt 50 ] || break
		sleep 0.1
	done
	if module_loaded; then
		not_ok "$1"
		diag "rmmod: $(cat "$OUT/rmmod.err"); use count $(awk '$1 == "pmclog" { print $3 }' /proc/modules)"
		return 1
	fi
	ok "$1"
	[ "$_tries" = 0 ] || diag "rmmod needed $_tries retries"
}

# The limits below are SECONDS times this (3 on a debug kernel, whose
# guest runs slower): a limit catches a hang, it does not time the code.
: "${PMCLOG_TIME_FACTOR:=1}"

# bounded SECONDS CMD ARGS...: run CMD, killing it after SECONDS, so that
# a hung recorder fails one check instead of the whole scenario.  The
# status is CMD's, or 137 when it was killed (then says so).
bounded() {
	_secs=$(($1 * PMCLOG_TIME_FACTOR))
	shift
	timeout -s KILL "$_secs" "$@"
	_rc=$?
	[ "$_rc" != 137 ] || diag "killed after ${_secs}s: $*"
	return "$_rc"
}

# wait_for SECONDS CMD ARGS...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	_tries=$(($1 * PMCLOG_TIME_FACTOR * 10))
	shift
	while ! "$@"; do
		_tries=$((_tries - 1))
		[ "$_tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# shellcheck disable=SC2034 # WAIT_STATUS is for the caller
# wait_exit PID SECONDS: wait for a background child; its status in
# $WAIT_STATUS, or return 1 (child still running) after SECONDS.
wait_exit() {
	if ! wait_for "$2" _gone "$1"; then
		WAIT_STATUS=
		return 1
	fi
	wait "$1"
	WAIT_STATUS=$?
}

# A child that exited but was not waited for is a zombie: gone for us.
_gone() {
	[ -d "/proc/$1" ] || return 0
	grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# kernel_log_clean: ok when the kernel logged no oops, WARN, BUG, lockup
# or stall since this scenario began.  The host judges the whole boot's
# log with the same regex (run.sh passes it in /etc/vmtest.conf); this says
# which scenario it was, and keeps the lines in $OUT/dmesg.txt.
kernel_log_clean() {
	_re=$(sed -n "s/^KERNEL_TROUBLE_REGEX='\\(.*\\)'\$/\\1/p" /etc/vmtest.conf 2>/dev/null)
	if [ -z "$_re" ]; then
		not_ok "kernel log checked: /etc/vmtest.conf has no KERNEL_TROUBLE_REGEX"
		return 1
	fi
	dmesg >"$OUT/dmesg-all.txt"
	if grep -q "pmclog-vm: $SCENARIO: begin" "$OUT/dmesg-all.txt"; then
		sed -n "/pmclog-vm: $SCENARIO: begin/,\$p" "$OUT/dmesg-all.txt" >"$OUT/dmesg.txt"
	else
		diag "the kernel log no longer holds this scenario's start: all of it is checked"
		cp "$OUT/dmesg-all.txt" "$OUT/dmesg.txt"
	fi
	rm -f "$OUT/dmesg-all.txt"
	if grep -aE "$_re" "$OUT/dmesg.txt" >"$OUT/trouble.txt"; then
		not_ok "kernel log has no oops, WARN, BUG, lockup or stall during $SCENARIO"
		head -n 5 "$OUT/trouble.txt" | while IFS= read -r _l; do diag "  $_l"; done
		return 1
	fi
	ok "kernel log has no oops, WARN, BUG, lockup or stall during $SCENARIO"
}

# ------------------------------------------------------------------
# pmclog dump output: "TYPE cpu=N ts=N key=value ..." one record a line

# dump_log LOG TXT: decode LOG into TXT; the tool's exit status.
dump_log() {
	bounded 60 pmclog dump -i "$1" >"$2" 2>"$2.err"
}

# kv_awk [-t TYPE[,TYPE...]] TXT PROGRAM: PROGRAM sees $1 = the type and
# f["key"] = value.  With -t it sees only the records of those types, the
# others skipped before their fields are split: splitting every line of a
# dump is what makes kv_awk slow in TCG (a dump of 14000 records: 2-3 s,
# against a tenth of that for its few CLOSELOG and DROPNOTIFY lines).
kv_awk() {
	_kv_types=
	if [ "$1" = -t ]; then
		_kv_types=$2
		shift 2
	fi
	awk -v types="$_kv_types" '
	     BEGIN { nt = split(types, tl, ","); for (i = 1; i <= nt; i++) want[tl[i]] = 1 }
	     nt && !($1 in want) { next }
	     { delete f
	       for (i = 2; i <= NF; i++) {
	           k = $i; v = $i
	           if (!sub(/=.*/, "", k)) continue
	           sub(/^[^=]*=/, "", v); f[k] = v
	       } }
	     '"$2" "$1"
}

count_type() { awk -v t="$2" '$1 == t { n++ } END { print n + 0 }' "$1"; }
first_type() { awk 'NF { print $1; exit }' "$1"; }
# The last few lines only: a whole dump is long, and slow to split in TCG.
last_type() { tail -n 3 "$1" | awk 'NF { t = $1 } END { print t }'; }

# windows DUMP COND: "PATH FROM TO" for each mapping whose MAP_IN matches
# the awk condition COND (over f[]), from that MAP_IN to the MAP_OUT of
# the same pid and start, in seconds after INITIALIZE: what report --time
# takes.
windows() {
	kv_awk -t INITIALIZE,MAP_IN,MAP_OUT "$1" '$1 == "INITIALIZE" { t0 = f["ts"] }
		$1 == "MAP_IN" && ('"$2"') { k = f["pid"] " " f["start"]; s[k] = f["ts"]; p[k] = f["path"] }
		$1 == "MAP_OUT" && ((f["pid"] " " f["start"]) in s) {
			k = f["pid"] " " f["start"]
			printf "%s %.6f %.6f\n", p[k], (s[k] - t0) / 1e9, (f["ts"] - t0) / 1e9
			delete s[k]
		}'
}

# record_two_loads LOG FIRST SECOND MS HZ: pmclog record -F HZ into LOG of
# a shell that loads module FIRST, has its busy function spin MS ms
# (/proc/pmclog_testmod), unloads it, then the same with SECOND (the same
# module, or its rebuild); its stdout and stderr in LOG-record.out/.err.
record_two_loads() {
	cat >"$1.sh" <<EOS
insmod $2 || exit 1
echo $4 >/proc/pmclog_testmod || exit 1
rmmod pmclog_testmod || exit 1
insmod $3 || exit 1
echo $4 >/proc/pmclog_testmod || exit 1
rmmod pmclog_testmod
EOS
	bounded 60 pmclog record -F "$5" -o "$1" -- sh "$1.sh" >"$1-record.out" 2>"$1-record.err"
}

# field_of TXT TYPE KEY: KEY's value in the last TYPE record.
field_of() {
	kv_awk -t "$2" "$1" '$1 == "'"$2"'" { v = f["'"$3"'"] } END { print v }'
}

# sum_field TXT TYPE KEY: the sum of KEY over TYPE records.
sum_field() {
	kv_awk -t "$2" "$1" '$1 == "'"$2"'" { s += f["'"$3"'"] } END { printf "%d\n", s }'
}

# folded_count FOLDED OBJECT SYMBOL: the samples of OBJECT;SYMBOL in a
# report --format folded ("STACK COUNT" lines; a stack may hold blanks).
folded_count() {
	awk -v key="$2;$3" '{ c = $NF; k = substr($0, 1, length($0) - length(c) - 1) }
		k == key { n += c } END { print n + 0 }' "$1"
}

# folded_total FOLDED: every sample of a folded report.
folded_total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

# cpu_counts TXT: "cpuN=COUNT" of the PCSAMPLEs of each CPU (cpu= is the
# first field of every record: no need to split the others).
cpu_counts() {
	awk '$1 == "PCSAMPLE" { c[$2]++ }
	     END { for (k in c) { n = k; sub(/=/, "", n); printf "%s=%d ", n, c[k] } }' "$1"
}

# types_summary TXT: "TYPE count" lines, most frequent first.
types_summary() {
	awk 'NF { n[$1]++ } END { for (t in n) print n[t], t }' "$1" | sort -rn |
		awk '{ printf "%-12s %d\n", $2, $1 }'
}

# kv_of FILE KEY: the value of the first "KEY=VALUE" word on a line of
# FILE (what workloads print: "mapstorm: pid=P ... map_in=N").
kv_of() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" | head -n 1; }

# drop_counts TXT: what a log says it lost, as "N SAMPLES RECORDS
# CLOSE_SAMPLES CLOSE_SAMPLES_DROPPED CLOSE_RECORDS_DROPPED": the number of
# DROPNOTIFY records and their sums, then CLOSELOG's three totals ("-"
# without CLOSELOG).  grep first: kv_awk over a whole dump is slow in TCG.
drop_counts() {
	grep -E '^(DROPNOTIFY|CLOSELOG) ' "$1" | kv_awk - '
	$1 == "DROPNOTIFY" { n++; s += f["samples"]; r += f["records"] }
	$1 == "CLOSELOG" { c = f["samples"] " " f["samples_dropped"] " " f["records_dropped"] }
	END { printf "%d %.0f %.0f %s\n", n, s, r, c == "" ? "- - -" : c }'
}

# by_time TXT: the records of a dump in (timestamp, position) order, the
# order of the events, as pmclog(4) tells readers to sort: a record that
# names a file (MAP_IN, PROCEXEC) reaches the log only once its path is
# resolved, after the records around it.  ts= is the third field.
by_time() {
	awk '{ t = substr($0, index($0, " ts=") + 4); t = substr(t, 1, index(t, " ") - 1)
	       printf "%s %08d %s\n", t, NR, $0 }' "$1" |
		sort -n -k1,1 -k2,2 | cut -d' ' -f3-
}

# file_map_counts TXT PID PATH: replay PID's MAP_IN and MAP_OUT records in
# (timestamp, position) order and print "IN OUT STRAY LEFT FLAGGED":
#
#   IN       MAP_INs of PATH
#   OUT      MAP_OUTs that end (part of) a mapping of PATH
#   STRAY    MAP_OUTs that end nothing the log had mapped for PID
#   LEFT     mappings of PATH still there at the end of the log
#   FLAGGED  MAP_INs of PATH with flags (INITIAL, ANON, ...)
#
# That is the order of PID's changes: each is stamped while the process
# holds its mmap_lock for writing (or is alone with its mm, at exec and
# exit).  PROCEXEC forgets every map, as a reader must.
#
# No $N in the awk: busybox awk splits a line into fields only when one is
# used, and that is most of its time here.
file_map_counts() {
	by_time "$1" | awk -v pid="$2" -v path="$3" '
	# busybox awk reads "0x..." as hex (strtod); other awks get the loop.
	function h2d(x,   i, v) {
		v = x + 0
		if (v || x ~ /^0x0*$/) return v
		sub(/^0x/, "", x)
		for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	# The value of key k (no regex built per call: busybox awk compiles
	# each one it is given, which is slow under TCG).
	function val(k,   i, v) {
		if (!(i = index($0, " " k "="))) return ""
		v = substr($0, i + length(k) + 2)
		return (i = index(v, " ")) ? substr(v, 1, i - 1) : v
	}
	# Keys are "%.0f" strings: awks turn big numbers into "%.6g" keys.
	function put(a, b, p,   k) { k = sprintf("%.0f", a); S[k] = a; E[k] = b; P[k] = p }
	# Cut [s, e) out of every map: 1 if it ended part of a map of PATH,
	# 2 if only of others, 0 if of none.  The keys are taken first: awk
	# does not say what for-in does with keys added while it runs.
	function cut(s, e,   k, K, n, i, a, b, p, r) {
		r = 0; n = 0
		for (k in S) if (E[k] > s && S[k] < e) K[++n] = k
		for (i = 1; i <= n; i++) {
			k = K[i]; a = S[k]; b = E[k]; p = P[k]
			if (p == path) r = 1; else if (!r) r = 2
			delete S[k]; delete E[k]; delete P[k]
			if (a < s) put(a, s, p)
			if (e < b) put(e, b, p)
		}
		return r
	}
	BEGIN { key = " pid=" pid " " }
	!index($0, key) { next }
	{ t = substr($0, 1, index($0, " ") - 1) }
	t != "MAP_IN" && t != "MAP_OUT" && t != "PROCEXEC" || val("pid") != pid { next }
	t == "PROCEXEC" { for (k in S) { delete S[k]; delete E[k]; delete P[k] } }
	t == "MAP_IN" {
		p = substr($0, index($0, " path=") + 6)	# the last key
		s = h2d(val("start")); e = h2d(val("end"))
		cut(s, e)
		put(s, e, p)
		if (p == path) { nin++; if (val("flags") != "0x0") flagged++ }
	}
	t == "MAP_OUT" {
		r = cut(h2d(val("start")), h2d(val("end")))
		if (r == 1) nout++; else if (r == 0) stray++
	}
	END {
		for (k in S) if (P[k] == path) left++
		printf "%d %d %d %d %d\n", nin, nout, stray, left, flagged
	}'
}

# run_with_bpf SCENARIO...: run each scenario again (from
# /lib/vmtest/scenarios, where all of them are, --only or not), against
# the BPF collector (PMCLOG_COLLECTOR=bpf: see module_load), its results
# reported as this scenario's, named "SCENARIO[bpf]", its files in
# $OUT/SCENARIO.  The shared scenarios: both collectors must pass them.
run_with_bpf() {
	for _s in "$@"; do
		mkdir -p "$OUT/$_s"
		read -r _t0 _ </proc/uptime
		PMCLOG_COLLECTOR=bpf SUBSCENARIO="$_s[bpf]" OUT="$OUT/$_s" \
			sh "/lib/vmtest/scenarios/$_s.sh" </dev/null 2>"$OUT/$_s/stderr.txt"
		_rc=$?
		read -r _t1 _ </proc/uptime
		diag "$_s[bpf]: $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }') s"
		[ "$_rc" = 0 ] || [ "$_rc" = 4 ] ||
			not_ok "$_s[bpf]: exited with status $_rc ($(tail -n 1 "$OUT/$_s/stderr.txt"))"
	done
}
