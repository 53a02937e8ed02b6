#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 1080
#
# The VM half of make bench (tests/bench/run.sh), in one boot: xz -9 -T1
# on INPUT_KB of /bin/busybox, bare, under perf record, under pmclog
# record with the module and under pmclog record --bpf (the BPF
# collector), cpu-clock, process mode, defaults otherwise, at each of
# RATES, ROUNDS rounds, the four interleaved in each round.  Each run is timed
# by timeit twice, on CLOCK_MONOTONIC: the whole command (the recorder
# included: its start, its end, its writes) and xz alone (inside the
# recorder).  Per recorded run: the samples, the samples and records the
# recorder lost, the log's bytes; at the highest rate the time of
# `pmclog report` and of `perf report --stdio --sort dso,sym` on that log.
# One line per run in $OUT/bench.txt; the host makes the table.  Only
# failures to run are checks here: the figures are never judged.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko with its defaults"

X=/opt/extra
ROUNDS=5
RATES="1000 4000 10000"
INPUT_KB=2048
# shellcheck disable=SC1091 # written by tests/bench/run.sh
[ -r $X/bench.conf ] && . $X/bench.conf
IN=/tmp/xz.in
RES=$OUT/bench.txt
T=/tmp/t.txt
export HOME=/root PERF_PAGER=cat

head -c $((INPUT_KB * 1024)) /bin/busybox >"$IN"
check "timeit and xz are in the initramfs" test -x $X/timeit -a -x $X/xz
have_perf=0
if [ -x $X/perf ] && $X/perf record -q -e cpu-clock -o /tmp/probe.data -- true \
	>/dev/null 2>"$OUT/perf-probe.err"; then
	have_perf=1
	ok "perf records cpu-clock here ($($X/perf --version))"
else
	diag "no perf: $(tail -n 2 "$OUT/perf-probe.err" 2>/dev/null)"
fi
echo "have_perf=$have_perf input_kb=$INPUT_KB rounds=$ROUNDS rates=$RATES" >"$RES"

# field KEY FILE: the value of KEY=... on the last line of FILE.
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }

# run TOOL RATE ROUND: one timed run; appends its line to $RES.
run() {
	rm -f "$T" /tmp/run.pmclog /tmp/run.data
	case $1 in
	bare)
		$X/timeit -o "$T" -t whole -- $X/timeit -o "$T" -t own -- \
			$X/xz -9 -T1 -c "$IN" >/dev/null
		;;
	pmclog | bpf)
		_opt=
		[ "$1" = bpf ] && _opt=--bpf
		$X/timeit -o "$T" -t whole -- pmclog record -q $_opt -F "$2" -o /tmp/run.pmclog -- \
			$X/timeit -o "$T" -t own -- $X/xz -9 -T1 -c "$IN" >/dev/null
		;;
	perf)
		$X/timeit -o "$T" -t whole -- $X/perf record -q -e cpu-clock -F "$2" \
			-o /tmp/run.data -- $X/timeit -o "$T" -t own -- \
			$X/xz -9 -T1 -c "$IN" >/dev/null 2>"$OUT/perf-record.err"
		;;
	esac
	_rc=$?
	[ "$_rc" = 0 ] || { not_ok "$1 at $2 Hz, round $3: exit $_rc"; return 1; }
	_whole=$(grep '^whole ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
	_own=$(grep '^own ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
	_samples=0 _lost=0 _lostrec=0 _bytes=0 _rep=0
	case $1 in
	pmclog | bpf)
		_bytes=$(stat -c %s /tmp/run.pmclog)
		$X/timeit -o "$T" -t report -- pmclog report -i /tmp/run.pmclog \
			>/dev/null 2>/tmp/report.err
		_samples=$(sed -n 's/^pmclog report: \([0-9]*\) samples:.*/\1/p' /tmp/report.err)
		_lost=$(sed -n 's/.*dropped by the kernel: \([0-9]*\) samples, \([0-9]*\) records.*/\1/p' /tmp/report.err)
		_lostrec=$(sed -n 's/.*dropped by the kernel: \([0-9]*\) samples, \([0-9]*\) records.*/\2/p' /tmp/report.err)
		_rep=$(grep '^report ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
		;;
	perf)
		_bytes=$(stat -c %s /tmp/run.data)
		$X/timeit -o "$T" -t report -- $X/perf report -i /tmp/run.data --stdio \
			--sort dso,sym >/dev/null 2>&1
		_rep=$(grep '^report ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
		$X/perf report -i /tmp/run.data --stats >/tmp/stats.txt 2>&1
		_samples=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		_lostrec=$(sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		_lost=$(sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		;;
	esac
	echo "run tool=$1 rate=$2 round=$3 whole_ns=${_whole:-0} own_ns=${_own:-0} samples=${_samples:-0} lost_samples=${_lost:-0} lost_records=${_lostrec:-0} bytes=${_bytes:-0} report_ns=${_rep:-0}" >>"$RES"
}

n=0
for rate in $RATES; do
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		# Interleaved, the order turning each round: a host that
		# slows down for a while slows each tool alike.
		case $((r % 4)) in
		0) order="bare pmclog bpf perf" ;;
		1) order="perf bare pmclog bpf" ;;
		2) order="bpf perf bare pmclog" ;;
		*) order="pmclog bpf perf bare" ;;
		esac
		for tool in $order; do
			[ "$tool" = perf ] && [ "$have_perf" = 0 ] && continue
			run "$tool" "$rate" "$r" && n=$((n + 1))
		done
		r=$((r + 1))
	done
done
diag "$n runs; $(wc -l <"$RES") lines in bench.txt"
at_least "$n" 1 "the benchmark ran"
kernel_log_clean
