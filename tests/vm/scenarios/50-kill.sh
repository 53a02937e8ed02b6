#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# A recorder holds the module: rmmod fails while it runs.  SIGKILLed in
# the middle of sampling, it must leave nothing behind that stops rmmod.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

/bin/busy 4 &
busy=$!
pmclog record --no-kallsyms -a -F 1000 -q -o "$OUT/kill.pmclog" >"$OUT/record.out" 2>"$OUT/record.err" &
rec=$!

# Sampling has started once records reach the file.
if ! wait_for 10 test -s "$OUT/kill.pmclog"; then
	diag "record: $(tail -n 3 "$OUT/record.err")"
fi
check "recorder is running after 1 s" sh -c "sleep 1; kill -0 $rec"
diag "module use count: $(awk '$1 == "pmclog" { print $3 }' /proc/modules)"
if rmmod pmclog 2>"$OUT/rmmod-busy.err"; then
	not_ok "rmmod pmclog fails while a recorder has /dev/pmclog open"
	module_load
else
	ok "rmmod pmclog fails while a recorder has /dev/pmclog open"
	diag "rmmod said: $(cat "$OUT/rmmod-busy.err")"
fi

kill -KILL "$rec"
if wait_exit "$rec" 10; then
	is "$WAIT_STATUS" 137 "recorder died of SIGKILL"
else
	not_ok "recorder died within 10 s of SIGKILL"
fi
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null

module_unload_check "rmmod pmclog after the recorder was killed"
check "insmod pmclog.ko after the kill" module_load
