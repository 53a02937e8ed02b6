#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# Churn: logs start and stop over and over (system-wide, and a command
# followed with -d; now and then a recorder is SIGKILLed at a random
# moment) while, on the other CPU, processes exec, fork, dlopen, dlclose and
# exit and a module loads and unloads, so that every hook of the module runs
# while START and STOP change what the hooks see.  This is the loop that
# took 6.12 down ("Oops: int3" at a hook's static-branch site): the verdict
# is mostly the kernel's, from the console; the scenario checks that every
# recording ended cleanly with CLOSELOG and that pmclog unloads at the end.
#
# CHURN_ROUNDS (default 60) bounds the rounds, CHURN_SECS (default 90) the
# time: whichever ends first.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

TESTMOD=/lib/modules/pmclog_testmod.ko
LIBDIR=/lib/workloads
ROUNDS=${CHURN_ROUNDS:-60}
SECS=${CHURN_SECS:-90}
STOP=$OUT/churn.stop

# The churner: each pass execs dlswap (dlopen/dlclose of two libraries),
# forker (three fork+exec+exit), and loads and unloads the test module.
# It counts its passes and what failed in $OUT/churn.*.
churn() {
	_n=0
	_fail=0
	while [ ! -e "$STOP" ]; do
		/bin/dlswap "$LIBDIR" 0.02 >/dev/null 2>&1 || _fail=$((_fail + 1))
		/bin/forker -n 3 >/dev/null 2>&1 || _fail=$((_fail + 1))
		if insmod "$TESTMOD" 2>/dev/null; then
			echo 2 >/proc/pmclog_testmod
			rmmod pmclog_testmod || _fail=$((_fail + 1))
		else
			_fail=$((_fail + 1))
		fi
		_n=$((_n + 1))
		echo "$_n $_fail" >"$OUT/churn.count"
	done
}

rm -f "$STOP"
churn &
churner=$!
on_cpu1 "$churner" "the churner"

t0=$(date +%s)
round=0
bad_exit=0
no_close=0
kills=0
kill_bad=0
while [ "$round" -lt "$ROUNDS" ] && [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	round=$((round + 1))
	log=$OUT/round.pmclog
	case $((round % 4)) in
	0)
		# A recorder SIGKILLed 0-0.3 s after it started.
		pmclog record --no-kallsyms -a -F 2000 -q -o "$log" \
			>/dev/null 2>"$OUT/kill.err" &
		rec=$!
		sleep "0.$((RANDOM % 4))"
		kill -KILL "$rec" 2>/dev/null
		if wait_exit "$rec" 10; then
			kills=$((kills + 1))
		else
			kill_bad=$((kill_bad + 1))
			diag "round $round: recorder still there 10 s after SIGKILL"
		fi
		continue
		;;
	1 | 3)
		bounded 30 pmclog record --no-kallsyms -a -F 2000 -q -o "$log" \
			-- sleep 0.2 >/dev/null 2>"$OUT/round.err"
		;;
	2)
		bounded 30 pmclog record --no-kallsyms -d -F 2000 -q -o "$log" \
			-- /bin/forker -n 2 /bin/dlswap "$LIBDIR" 0.01 \
			>/dev/null 2>"$OUT/round.err"
		;;
	esac
	rc=$?
	if [ "$rc" != 0 ]; then
		bad_exit=$((bad_exit + 1))
		diag "round $round: record exited $rc: $(tail -n 2 "$OUT/round.err")"
		continue
	fi
	if ! dump_log "$log" "$OUT/round.txt" ||
	    [ "$(last_type "$OUT/round.txt")" != CLOSELOG ]; then
		no_close=$((no_close + 1))
		diag "round $round: log does not end with CLOSELOG: $(tail -n 1 "$OUT/round.txt.err")"
		cp "$log" "$OUT/bad-$round.pmclog"
	fi
done
elapsed=$(($(date +%s) - t0))

touch "$STOP"
if wait_exit "$churner" 60; then
	ok "churner stopped"
else
	not_ok "churner stopped within 60 s"
	kill -KILL "$churner" 2>/dev/null
fi
read -r passes cfail <"$OUT/churn.count" || { passes=0; cfail=0; }
diag "$round rounds in ${elapsed}s ($kills recorders killed), $passes churn passes"
echo "rounds=$round kills=$kills passes=$passes secs=$elapsed" >"$OUT/summary.txt"

at_least "$round" 8 "rounds of START/STOP under churn"
at_least "$passes" 2 "churn passes (exec, dlopen, fork, module load) meanwhile"
is "$cfail" 0 "churn operations that failed"
is "$bad_exit" 0 "recordings that did not exit 0"
is "$no_close" 0 "logs that do not end with CLOSELOG"
is "$kill_bad" 0 "SIGKILLed recorders that did not die"
grep -q '^pmclog_testmod ' /proc/modules && rmmod pmclog_testmod
check "rmmod pmclog after the churn" rmmod pmclog
