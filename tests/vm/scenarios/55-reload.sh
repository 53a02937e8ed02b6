#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Load and unload pmclog over and over while the other CPU switches tasks
# without a pause (two shells talking through a pipe).  Each load
# registers the module's hooks, each unload removes them, while
# __schedule() runs on both CPUs.  The module's sched_switch probe is
# registered at load; were it the tracepoint's first, each load and
# unload would rewrite __schedule(), which under TCG hung 6.1-rt after 17
# loads of this loop (tests/vm/kernels.sh says why, and holds the
# tracepoint from boot).  The verdict is mostly the kernel's.
# RELOAD_ROUNDS (30) loads, RELOAD_SECS (60) at most: whichever ends
# first.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module

ROUNDS=${RELOAD_ROUNDS:-30}
SECS=${RELOAD_SECS:-60}
STOP=$OUT/reload.stop

# The switcher, on CPU 1: a writer waking its reader through a pipe, with
# no fork and no exec (the kprobed paths are rewritten at load as well;
# see kernels.sh).
rm -f "$STOP"
( while [ ! -e "$STOP" ]; do echo x; done | cat >/dev/null ) &
pipe=$!
on_cpu1 "$pipe" "the pipe"

t0=$(date +%s)
round=0
bad_load=0
bad_unload=0
while [ "$round" -lt "$ROUNDS" ] && [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	round=$((round + 1))
	if ! module_load; then
		bad_load=$((bad_load + 1))
		continue
	fi
	rmmod pmclog 2>"$OUT/rmmod.err" || {
		bad_unload=$((bad_unload + 1))
		diag "round $round: rmmod: $(cat "$OUT/rmmod.err")"
	}
done
elapsed=$(($(date +%s) - t0))
touch "$STOP"
wait_exit "$pipe" 30 || kill -KILL "$pipe" 2>/dev/null
diag "$round loads and unloads in ${elapsed}s"

at_least "$round" 8 "loads and unloads while the other CPU switches tasks"
is "$bad_load" 0 "loads that failed"
is "$bad_unload" 0 "unloads that failed"
