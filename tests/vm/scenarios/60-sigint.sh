#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# Ctrl-C is how a user stops 'pmclog record -a': SIGINT must end the log
# properly, with CLOSELOG, and the recorder must exit 0.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

LOG=$OUT/int.pmclog
TXT=$OUT/int.txt

# busybox sh starts background jobs with SIGINT ignored: sigdfl undoes it.
sigdfl pmclog record --no-kallsyms -a -F 1000 -o "$LOG" >"$OUT/record.out" 2>"$OUT/record.err" &
rec=$!
wait_for 10 test -s "$LOG" || diag "no bytes in $LOG after 10 s"
/bin/busy 1
check "recorder still running before SIGINT" kill -0 "$rec"
kill -INT "$rec"
if wait_exit "$rec" 15; then
	is "$WAIT_STATUS" 0 "recorder exits 0 after SIGINT" ||
		diag "record: $(tail -n 3 "$OUT/record.err")"
else
	not_ok "recorder exits within 15 s of SIGINT"
	kill -KILL "$rec"
fi

dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(first_type "$TXT")" INITIALIZE "first record is INITIALIZE"
is "$(last_type "$TXT")" CLOSELOG "log stopped by SIGINT ends with CLOSELOG"
at_least "$(count_type "$TXT" PCSAMPLE)" 1 "log holds samples"
