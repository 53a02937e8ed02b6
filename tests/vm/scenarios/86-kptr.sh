#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# Kernel addresses reach a log only for an opener who may read them in
# /proc/kallsyms (kallsyms_show_value()): root may with kernel.kptr_restrict
# 0 or 1, nobody may with 2.  A hidden log has kernel samples with pc 0 and
# no MAP_IN of the kernel or its modules; user samples keep their pc.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

KPTR=/proc/sys/kernel/kptr_restrict
old=$(cat "$KPTR")

# record_kptr VALUE: a log of syscalls (mostly kernel samples) with
# kptr_restrict at VALUE, dumped to $OUT/kptr-VALUE.txt.
record_kptr() {
	echo "$1" >"$KPTR"
	bounded 30 pmclog record --no-kallsyms -o "$OUT/kptr-$1.pmclog" -- /bin/syscalls 1 \
		>"$OUT/record-$1.out" 2>"$OUT/record-$1.err"
	is "$?" 0 "kptr_restrict=$1: pmclog record -- syscalls exits 0" ||
		diag "record: $(tail -n 3 "$OUT/record-$1.err")"
	dump_log "$OUT/kptr-$1.pmclog" "$OUT/kptr-$1.txt" ||
		diag "dump: $(tail -n 3 "$OUT/kptr-$1.txt.err")"
}

# kernel_samples FILE: "all nonzero" kernel-mode PCSAMPLEs, and their pcs.
kernel_samples() { kv_awk -t PCSAMPLE "$1" '$1 == "PCSAMPLE" && f["mode"] == "kernel" { n++; if (f["pc"] != "0x0") nz++ } END { print n + 0, nz + 0 }'; }
kernel_maps() { kv_awk -t MAP_IN "$1" '$1 == "MAP_IN" && f["pid"] == "-1" { n++ } END { print n + 0 }'; }

for v in 1 2; do
	record_kptr "$v"
done
echo "$old" >"$KPTR"

set -- $(kernel_samples "$OUT/kptr-1.txt")
at_least "$1" 20 "kptr_restrict=1: kernel samples"
is "$2" "$1" "kptr_restrict=1: every kernel sample has its pc"
at_least "$(kernel_maps "$OUT/kptr-1.txt")" 1 "kptr_restrict=1: MAP_IN of the kernel"

set -- $(kernel_samples "$OUT/kptr-2.txt")
at_least "$1" 20 "kptr_restrict=2: kernel samples"
is "$2" 0 "kptr_restrict=2: no kernel sample has a pc"
is "$(kernel_maps "$OUT/kptr-2.txt")" 0 "kptr_restrict=2: no MAP_IN of the kernel or a module"
user=$(kv_awk -t PCSAMPLE "$OUT/kptr-2.txt" '$1 == "PCSAMPLE" && f["mode"] == "user" && f["pc"] != "0x0" { n++ } END { print n + 0 }')
diag "kptr_restrict=2: $user user samples with their pc"
