#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# 'make demo': profile a small real workload in the VM and show what the
# log holds.  Everything printed here also lands in /out/demo/summary.txt,
# which the host prints after the VM is off.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh

SUMMARY=$OUT/summary.txt
say() { echo "$*" | tee -a "$SUMMARY"; }
# run CMD ARGS...: show the command and its output; its exit status.
run() {
	say "# $*"
	"$@" >"$OUT/run.out" 2>&1
	_rc=$?
	tee -a "$SUMMARY" <"$OUT/run.out"
	return $_rc
}

say "== pmclog demo on $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 / 1024 " MiB" }' /proc/meminfo)"
require_module
require_tool
module_load || bail "load pmclog.ko"
ok "module loaded"

# A workload with some shape: a compressor in a shared-library-free
# busybox, a user-mode spinner and a syscall loop, one after the other.
head -c 4000000 /dev/urandom >/tmp/demo.data
cat >/tmp/workload.sh <<'W'
gzip -c /tmp/demo.data >/dev/null
/bin/busy 1
/bin/syscalls 1
W
# -d: the workload is a shell script; its children are what matters.
run bounded 30 pmclog record -d -F 1000 -o "$OUT/demo.pmclog" -- /bin/sh /tmp/workload.sh
rc=$?
[ -s "$OUT/demo.pmclog" ] || bail "pmclog record wrote $OUT/demo.pmclog (exit $rc)"
ok "recorded $(wc -c <"$OUT/demo.pmclog") bytes"

dump_log "$OUT/demo.pmclog" "$OUT/demo.txt" || bail "pmclog dump: $(tail -n 3 "$OUT/demo.txt.err")"
ok "dumped $(wc -l <"$OUT/demo.txt") records"
say ""
say "== records by type"
types_summary "$OUT/demo.txt" | tee -a "$SUMMARY"
say ""
say "== samples by pid and mode (command from PROCEXEC)"
kv_awk "$OUT/demo.txt" '$1 == "PROCEXEC" { cmd[f["pid"]] = f["path"] }
	$1 == "PCSAMPLE" { n[f["pid"] " " f["mode"]]++ }
	END { for (k in n) { split(k, p, " "); print n[k], k, (p[1] in cmd ? cmd[p[1]] : "?") } }' |
	sort -rn | head -n 10 |
	awk '{ printf "%8d  pid %-6s %-7s %s\n", $1, $2, $3, $4 }' | tee -a "$SUMMARY"
say ""
say "== the first 20 records"
head -n 20 "$OUT/demo.txt" | tee -a "$SUMMARY"
say ""
if pmclog report -i "$OUT/demo.pmclog" >"$OUT/report.txt" 2>&1; then
	say "== pmclog report (top 30 lines)"
	head -n 30 "$OUT/report.txt" | tee -a "$SUMMARY"
	ok "pmclog report"
else
	say "== pmclog report: not available yet ($(head -n 1 "$OUT/report.txt"))"
fi
