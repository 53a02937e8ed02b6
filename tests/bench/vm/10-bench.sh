#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 1800
#
# The VM half of make bench (tests/bench/run.sh), in one boot:
#
# - xz -9 -T1 on INPUT_KB of /bin/busybox, bare, under perf record, under
#   pmclog record with the module and under pmclog record --bpf (the BPF
#   collector), cpu-clock, defaults otherwise, in each of MODES (process:
#   the command; system: -a) at each of RATES, ROUNDS rounds, the four
#   interleaved in each round.  Each run is timed by timeit twice, on
#   CLOCK_MONOTONIC: the whole command (the recorder included: its start,
#   its end, its writes) and xz alone (inside the recorder).  Per recorded
#   run: the samples, the samples and records the recorder lost, the
#   log's bytes; in process mode at the highest rate, the time of
#   `pmclog report` and of `perf report --stdio --sort dso,sym` on that
#   log.  In process mode,
#   also xz pinned to CPU 0, bare (pinbare) and with tests/kmod's
#   pmclog_tickfloor ticking there at the rate (tick): timer interrupts
#   that do nothing, the floor under a sample's cost.
# - Call stacks (mode stacks): process mode with -g (pmclog's and perf's
#   frame-pointer walks), at each of STACKS_RATES, the same way but on
#   /bin/callpaths -n STACKS_WORK (built with frame pointers, so that
#   there are stacks to walk: xz has none) instead of xz.
# - mmaploop: MMAP_OPS mmaps and munmaps of an executable page, bare and
#   under each recorder (process mode, 100 Hz), MMAP_ROUNDS rounds.
# - The highest drop-free rate: -a over two busy loops (one a CPU) for
#   SWEEP_SECONDS, at each of SWEEP_RATES in turn until the recorder
#   loses a sample or refuses the rate.
#
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
MODES="process system stacks"
STACKS_RATES=4000
STACKS_WORK=1200
INPUT_KB=1024
MMAP_OPS=20000
MMAP_ROUNDS=10
SWEEP_RATES="10000 20000 40000 80000"
SWEEP_SECONDS=2
ICOUNT=
# shellcheck disable=SC1091 # written by tests/bench/run.sh
[ -r $X/bench.conf ] && . $X/bench.conf
TICKMOD=/lib/modules/pmclog_tickfloor.ko
# The rate whose process-mode logs have their reports timed.
TOP_RATE=0
for _r in $RATES; do
	[ "$_r" -gt "$TOP_RATE" ] && TOP_RATE=$_r
done
IN=/tmp/xz.in
RES=$OUT/bench.txt
T=/tmp/t.txt
export HOME=/root PERF_PAGER=cat

head -c $((INPUT_KB * 1024)) /bin/busybox >"$IN"
check "timeit, mmaploop and xz are in the initramfs" test -x $X/timeit -a -x $X/mmaploop -a -x $X/xz
check "pmclog_tickfloor.ko is in the initramfs" test -r $TICKMOD
have_perf=0
if [ -x $X/perf ] && $X/perf record -q -e cpu-clock -o /tmp/probe.data -- true \
	>/dev/null 2>"$OUT/perf-probe.err"; then
	have_perf=1
	ok "perf records cpu-clock here ($($X/perf --version))"
else
	diag "no perf: $(tail -n 2 "$OUT/perf-probe.err" 2>/dev/null)"
fi
CLOCK=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
diag "clocksource: ${CLOCK:-unknown}"
echo "have_perf=$have_perf input_kb=$INPUT_KB rounds=$ROUNDS rates=$RATES modes=$MODES clocksource=${CLOCK:-unknown} icount=${ICOUNT:-off}" >"$RES"

# recorder TOOL MODE RATE OUTPUT: the words that run a command under
# TOOL's recorder (none for bare; taskset to CPU 0 for pinbare and tick)
# in MODE (process, system, stacks) at RATE, writing OUTPUT; paths
# without blanks, so that they split as words.
recorder() {
	_a=
	[ "$2" = system ] && _a=-a
	[ "$2" = stacks ] && _a=-g
	case $1 in
	pmclog) echo "pmclog record -q $_a -F $3 -o $4 --" ;;
	bpf) echo "pmclog record -q --bpf $_a -F $3 -o $4 --" ;;
	perf) echo "$X/perf record -q $_a -e cpu-clock -F $3 -o $4 --" ;;
	tick | pinbare) echo "taskset -c 0" ;;
	esac
}

# counts TOOL LOG [timed]: sets _samples, _lost, _lostrec from LOG's
# statistics and, with timed, _rep to the time of its report (TOOL's own,
# to /dev/null; pmclog's statistics come from its report anyway).
counts() {
	_samples=0 _lost=0 _lostrec=0 _rep=0
	case $1 in
	pmclog | bpf)
		$X/timeit -o "$T" -t report -- pmclog report -i "$2" \
			>/dev/null 2>/tmp/report.err
		_samples=$(sed -n 's/^pmclog report: \([0-9]*\) samples:.*/\1/p' /tmp/report.err)
		_lost=$(sed -n 's/.*dropped by the kernel: \([0-9]*\) samples, \([0-9]*\) records.*/\1/p' /tmp/report.err)
		_lostrec=$(sed -n 's/.*dropped by the kernel: \([0-9]*\) samples, \([0-9]*\) records.*/\2/p' /tmp/report.err)
		;;
	perf)
		[ "$3" = timed ] &&
			$X/timeit -o "$T" -t report -- $X/perf report -i "$2" --stdio \
				--sort dso,sym >/dev/null 2>&1
		$X/perf report -i "$2" --stats >/tmp/stats.txt 2>&1
		_samples=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		_lostrec=$(sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		_lost=$(sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' /tmp/stats.txt | head -n 1)
		;;
	esac
	_rep=$(grep '^report ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
}

# run TOOL MODE RATE ROUND: one timed run of xz (callpaths in mode
# stacks); appends its line to $RES.
# TOOL pinbare: bare, pinned to CPU 0; tick: the same with pmclog_tickfloor
# ticking at RATE on CPU 0, its samples the ticks.
run() {
	rm -f "$T" /tmp/run.log
	if [ "$1" = tick ] && ! insmod $TICKMOD rate_hz="$3" cpu=0 2>"$OUT/insmod.err"; then
		not_ok "insmod pmclog_tickfloor rate_hz=$3 cpu=0: $(cat "$OUT/insmod.err")"
		return 1
	fi
	_work="$X/xz -9 -T1 -c $IN"
	[ "$2" = stacks ] && _work="/bin/callpaths -n $STACKS_WORK"
	# shellcheck disable=SC2046,SC2086 # the recorder's words, the work's
	$X/timeit -o "$T" -t whole -- $(recorder "$1" "$2" "$3" /tmp/run.log) \
		$X/timeit -o "$T" -t own -- $_work \
		>/dev/null 2>"$OUT/record.err"
	_rc=$?
	_ticks=0
	if [ "$1" = tick ]; then
		_ticks=$(cat /sys/module/pmclog_tickfloor/parameters/ticks)
		rmmod pmclog_tickfloor || { not_ok "rmmod pmclog_tickfloor"; return 1; }
	fi
	[ "$_rc" = 0 ] || {
		not_ok "$1, $2 mode at $3 Hz, round $4: exit $_rc"
		diag "$(tail -n 2 "$OUT/record.err")"
		return 1
	}
	_whole=$(grep '^whole ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
	_own=$(grep '^own ' "$T" | sed 's/.*wall_ns=\([0-9]*\).*/\1/')
	_samples=$_ticks _lost=0 _lostrec=0 _bytes=0 _rep=0
	case $1 in
	pmclog | bpf | perf)
		_bytes=$(stat -c %s /tmp/run.log)
		# The reports timed are those of process mode at the top rate
		# (table.awk): under TCG perf's report of a log takes 0.5-3 s,
		# and that of every other log went to waste.
		if [ "$2" = process ] && [ "$3" = "$TOP_RATE" ]; then
			counts "$1" /tmp/run.log timed
		else
			counts "$1" /tmp/run.log
		fi
		;;
	esac
	echo "run tool=$1 mode=$2 rate=$3 round=$4 whole_ns=${_whole:-0} own_ns=${_own:-0} samples=${_samples:-0} lost_samples=${_lost:-0} lost_records=${_lostrec:-0} bytes=${_bytes:-0} report_ns=${_rep:-0}" >>"$RES"
}

# mmaprun TOOL ROUND: mmaploop under TOOL (process mode, 100 Hz).
mmaprun() {
	rm -f "$T" /tmp/run.log
	# shellcheck disable=SC2046 # the recorder's words
	$(recorder "$1" process 100 /tmp/run.log) \
		$X/mmaploop -o "$T" -n "$MMAP_OPS" $X/mmaploop >/dev/null 2>"$OUT/record.err"
	_rc=$?
	[ "$_rc" = 0 ] || { not_ok "mmaploop under $1, round $2: exit $_rc"; return 1; }
	echo "mmap tool=$1 round=$2 $(sed -n 's/^mmap //p' "$T")" >>"$RES"
}

# order ROUND: the tools in ROUND's order, turning each round, so that a
# host that slows down for a while slows each tool alike.
order() {
	case $(($1 % 4)) in
	0) echo "bare pmclog bpf perf" ;;
	1) echo "perf bare pmclog bpf" ;;
	2) echo "bpf perf bare pmclog" ;;
	*) echo "pmclog bpf perf bare" ;;
	esac
}

# One run of each tool, its figures thrown away, before the rounds: the
# first runs of a boot pay for TCG's translation of the recorder, xz (and
# callpaths) and the kernel paths they take (the first row, process mode
# at 1 kHz, came out slower than the 4 kHz one after it).
_res=$RES
RES=/dev/null
for tool in bare pmclog bpf perf; do
	[ "$tool" = perf ] && [ "$have_perf" = 0 ] && continue
	run "$tool" process 1000 0
	case " $MODES " in
	*" stacks "*) run "$tool" stacks "${STACKS_RATES%% *}" 0 ;;
	esac
done
RES=$_res

n=0
for mode in $MODES; do
	rates=$RATES
	[ "$mode" = stacks ] && rates=$STACKS_RATES
	for rate in $rates; do
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			_tick=
			[ "$mode" = process ] && _tick="pinbare tick"
			for tool in $(order "$r") $_tick; do
				[ "$tool" = perf ] && [ "$have_perf" = 0 ] && continue
				run "$tool" "$mode" "$rate" "$r" && n=$((n + 1))
			done
			r=$((r + 1))
		done
	done
done

r=1
while [ "$r" -le "$MMAP_ROUNDS" ]; do
	for tool in $(order "$r"); do
		[ "$tool" = perf ] && [ "$have_perf" = 0 ] && continue
		mmaprun "$tool" "$r" && n=$((n + 1))
	done
	r=$((r + 1))
done

# The sweep: each tool from the lowest rate up, until a loss or a refusal
# (perf's -F above kernel.perf_event_max_sample_rate, which perf lowers
# by itself when its interrupts take too long; pmclog's above the
# module's max_sample_rate).
for tool in perf pmclog bpf; do
	[ "$tool" = perf ] && [ "$have_perf" = 0 ] && continue
	for rate in $SWEEP_RATES; do
		rm -f "$T" /tmp/run.log
		# shellcheck disable=SC2046 # the recorder's words
		$(recorder "$tool" system "$rate" /tmp/run.log) \
			sh -c "/bin/busy $SWEEP_SECONDS & /bin/busy $SWEEP_SECONDS; wait" \
			>/dev/null 2>"$OUT/sweep-$tool-$rate.err"
		_rc=$?
		_samples=0 _lost=0 _lostrec=0
		[ "$_rc" = 0 ] && counts "$tool" /tmp/run.log
		echo "sweep tool=$tool rate=$rate status=$_rc seconds=$SWEEP_SECONDS samples=${_samples:-0} lost_samples=${_lost:-0} lost_records=${_lostrec:-0}" >>"$RES"
		n=$((n + 1))
		if [ "$_rc" != 0 ] || [ "${_lost:-0}" != 0 ] || [ "${_lostrec:-0}" != 0 ]; then
			break
		fi
	done
done
diag "$n runs; $(wc -l <"$RES") lines in bench.txt"
at_least "$n" 1 "the benchmark ran"
kernel_log_clean
