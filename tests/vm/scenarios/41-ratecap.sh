#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# The sampling-rate limit (module parameter max_sample_rate, as perf's
# kernel.perf_event_max_sample_rate) on the path every machine has, the
# cpu-clock hrtimer: pmclog list shows it, a rate above it is refused by
# ALLOCATE (ERANGE) with a usage error that names the limit, as is a
# cpu-clock period shorter than 1/limit, and at the limit recording
# works.  A bad value does not load.  The throttle itself needs a PMU
# (tests/hw/run.sh; the simulated PMU in tests/unit/test_pmu.c).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool

if module_load max_sample_rate=0; then
	not_ok "max_sample_rate=0 is refused at load"
else
	ok "max_sample_rate=0 is refused at load"
fi
check "dmesg says why" sh -c "dmesg | grep -q 'max_sample_rate=0 Hz is out of range'"
module_load max_sample_rate=2000 || bail "load pmclog.ko max_sample_rate=2000"
check "the load message shows the limit" sh -c "dmesg | grep -q 'max_sample_rate=2000 Hz'"

pmclog list >"$OUT/list.out" 2>"$OUT/list.err"
is "$?" 0 "pmclog list exits 0"
check "list shows the limit" grep -q '^limits: 2000 samples per second per PMC and CPU' "$OUT/list.out"

bounded 30 pmclog record --no-kallsyms -e cpu-clock -F 2001 -o "$OUT/fast.pmclog" -- /bin/busy 1 \
	>"$OUT/fast.out" 2>"$OUT/fast.err"
is "$?" 64 "record -F 2001 is a usage error (EX_USAGE)"
check "it names the limit and the parameter" \
	grep -q 'at most 2000 per second per CPU (its max_sample_rate parameter' "$OUT/fast.err"
diag "record -F 2001: $(head -n 1 "$OUT/fast.err")"
check "no log is left behind" test ! -e "$OUT/fast.pmclog"

bounded 30 pmclog record --no-kallsyms -e cpu-clock -c 400000 -o "$OUT/short.pmclog" -- /bin/busy 1 \
	>"$OUT/short.out" 2>"$OUT/short.err"
is "$?" 64 "record -c 400000 (2.5 kHz of cpu-clock) is a usage error"
check "it names the limit" grep -q 'at most 2000 per second' "$OUT/short.err"

bounded 30 pmclog record --no-kallsyms -e cpu-clock -F 2000 -o "$OUT/ok.pmclog" -- /bin/busy -p "$OUT/busy.pid" 2 \
	>"$OUT/ok.out" 2>"$OUT/ok.err"
is "$?" 0 "record -F 2000 (the limit) works" || diag "record: $(tail -n 3 "$OUT/ok.err")"
dump_log "$OUT/ok.pmclog" "$OUT/ok.txt"
pid=$(cat "$OUT/busy.pid" 2>/dev/null)
n=$(kv_awk -t PCSAMPLE "$OUT/ok.txt" '$1 == "PCSAMPLE" && f["pid"] == '"${pid:-0}"' { n++ } END { print n + 0 }')
diag "busy: $n samples in 2 s at 2000 Hz"
# 4000 would be every tick; TCG on a shared host delivers a fraction, and
# what matters here is that a log at the limit samples at all.
at_least "$n" 400 "samples of busy at the limit"
is "$(count_type "$OUT/ok.txt" THROTTLE)" 0 "the hrtimer is never throttled"
