#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# The BPF collector (pmclog record --bpf, and by itself without the
# module): the shared scenarios again without the module -- objects
# dlopen()ed and dlclose()d at the same address, fork/exec/exit,
# executable mmap/mprotect/munmap, a module loaded and unloaded mid-run
# -- then what is the collector's own: INITIALIZE says BPF wrote the log,
# and plain pmclog record says why it falls back.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool

run_with_bpf 80-dlopen 83-forkexec 84-mapops 81-kmod

module_loaded && rmmod pmclog
bounded 60 pmclog record -o "$OUT/fallback.pmclog" -- /bin/busy 0.3 \
	>"$OUT/fallback.out" 2>"$OUT/fallback.err"
is "$?" 0 "pmclog record without the module exits 0"
check "it says it records through BPF, and why" \
	grep -q 'does not exist (the pmclog module is not loaded): recording through BPF' "$OUT/fallback.err"
dump_log "$OUT/fallback.pmclog" "$OUT/fallback.txt"
check "its INITIALIZE says the BPF collector wrote it" \
	grep -q '^INITIALIZE .* collector=bpf' "$OUT/fallback.txt"
is "$(last_type "$OUT/fallback.txt")" CLOSELOG "the log ends with CLOSELOG"
