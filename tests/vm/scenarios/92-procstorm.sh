#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# A fork/exec/exit storm followed with -d (tests/workloads/procstorm.c):
# children forked all at once, some exec'ing, some with threads that exit
# at the same moment (exit_group, or each thread's own exit, also while
# another process sharing the memory holds its mmap_lock), some whose
# non-main thread execs, some forking grandchildren.  The workload writes
# down every process of its tree with its parent, its execs and its wait
# status; the log must hold for each exactly one PROCFORK from that
# parent (but for the root, forked before START), as many PROCEXEC as it
# exec'd, exactly one PROCEXIT with that status, in that order, and no
# PROC* record about any other process.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

CHILDREN=35
THREADS=4
LOG=$OUT/procs.pmclog
TXT=$OUT/procs.txt
TREE=$OUT/tree.txt

rm -f "$TREE"
bounded 60 pmclog record --no-kallsyms -d -o "$LOG" -- \
	/bin/procstorm -n "$CHILDREN" -t "$THREADS" "$TREE" >"$OUT/procstorm.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -d -- procstorm -n $CHILDREN -t $THREADS exits 0" ||
	diag "record: $(tail -n 3 "$OUT/record.err")"
dump_log "$LOG" "$TXT"
is "$?" 0 "pmclog dump exits 0" || diag "dump: $(tail -n 3 "$TXT.err")"
is "$(last_type "$TXT")" CLOSELOG "the log ends with CLOSELOG"
read -r _ _ dn_records _ _ dropped <<EOF
$(drop_counts "$TXT")
EOF
is "$dn_records" "$dropped" "DROPNOTIFY records add up to CLOSELOG records_dropped"

# The tree, then the log's PROC* records in time order: one line per thing
# that is not as the tree says, and the totals.
by_time "$TXT" | grep -E '^PROC(FORK|EXEC|EXIT) ' >"$OUT/proc.txt"
awk '
	# The value of key k (no regex built per call: busybox awk compiles
	# each one it is given, which is slow under TCG).
	function val(k,   i, v) {
		if (!(i = index($0, " " k "="))) return ""
		v = substr($0, i + length(k) + 2)
		sub(/ .*/, "", v)
		return v
	}
	FNR == NR { n++; ppid[$1] = $2; kind[$1] = $3; execs[$1] = $4; status[$1] = $5; next }
	{ p = val("pid") }
	!(p in kind) { print "a " $1 " about pid " p ", not of the tree"; next }
	$1 == "PROCFORK" { forks[p]++; fppid[p] = val("ppid"); fline[p] = FNR; nf++ }
	$1 == "PROCEXEC" { ex[p]++; if (!eline[p]) eline[p] = FNR; ne++ }
	$1 == "PROCEXIT" { exits[p]++; xstatus[p] = val("status"); xline[p] = FNR; nx++ }
	END {
		for (p in kind) {
			w = p " (" kind[p] ")"
			want_forks = kind[p] != "root"
			want_forkn += want_forks; want_exec += execs[p]
			if (forks[p] + 0 != want_forks) print w ": " forks[p] + 0 " PROCFORK, want " want_forks
			else if (want_forks && fppid[p] != ppid[p]) print w ": PROCFORK from " fppid[p] ", want " ppid[p]
			if (ex[p] + 0 != execs[p]) print w ": " ex[p] + 0 " PROCEXEC, want " execs[p]
			if (exits[p] + 0 != 1) { print w ": " exits[p] + 0 " PROCEXIT, want 1"; if (exits[p] > 1) dup++ }
			else if (xstatus[p] != status[p]) print w ": PROCEXIT status " xstatus[p] ", want " status[p]
			if ((fline[p] && eline[p] && eline[p] < fline[p]) || (eline[p] && xline[p] < eline[p]) ||
			    (fline[p] && xline[p] < fline[p]))
				print w ": PROCFORK, PROCEXEC, PROCEXIT out of time order (" fline[p] + 0 ", " eline[p] + 0 ", " xline[p] + 0 " in proc.txt)"
		}
		printf "totals %d %d %d %d %d %d %d %d\n", n, nf, want_forkn, ne, want_exec, nx, n, dup
	}' "$TREE" "$OUT/proc.txt" >"$OUT/check.txt"

read -r tag procs forks want_forks execs want_execs exits want_exits dups <<EOF
$(grep '^totals ' "$OUT/check.txt")
EOF
[ "$tag" = totals ] || bail "the tree and the log compared: $(tail -n 2 "$OUT/check.txt")"
grep -v '^totals ' "$OUT/check.txt" >"$OUT/wrong.txt"
diag "$procs processes; PROCFORK $forks (owed $want_forks), PROCEXEC $execs (owed $want_execs), PROCEXIT $exits (owed $want_exits); $dropped records dropped"
at_least "$procs" $((CHILDREN + 1)) "procstorm wrote down its tree"
if [ "$dropped" = 0 ]; then
	is "$forks" "$want_forks" "PROCFORK: one per process forked while the log ran"
	is "$execs" "$want_execs" "PROCEXEC: one per exec"
	is "$exits" "$want_exits" "PROCEXIT: one per process"
	is "$dups" 0 "no process has more than one PROCEXIT (threads exiting at once)"
	is "$(wc -l <"$OUT/wrong.txt")" 0 "every process's PROC* records are as the tree says" ||
		head -n 10 "$OUT/wrong.txt" | while IFS= read -r l; do diag "  $l"; done
else
	# Which records were lost is not told: only the totals bind.
	in_band "$forks" 0 "$want_forks" "PROCFORK: no more than owed"
	in_band "$execs" 0 "$want_execs" "PROCEXEC: no more than owed"
	in_band "$exits" 0 "$want_exits" "PROCEXIT: no more than owed"
	in_band $((want_forks - forks + want_execs - execs + want_exits - exits)) 0 "$dropped" \
		"PROC* records missing: no more than the records dropped"
fi
kernel_log_clean
