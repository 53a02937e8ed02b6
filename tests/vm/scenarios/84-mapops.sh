#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# Every way a process changes its executable mappings (mprotect adding
# and removing PROT_EXEC, a partial munmap, an mremap move, anonymous
# executable memory, MAP_FIXED mappings of a file, of anonymous memory
# and of executable code over executable ones, System V shared memory
# attached executable and detached, the heap grown executable with brk
# and shrunk back), and munmap, mprotect and
# MAP_FIXED mmap calls that fail: replaying MAP_IN/MAP_OUT in tstamp
# order gives, at the end of each step, exactly the executable lines of
# /proc/PID/maps that mapper saved at that moment.  See
# tests/workloads/mapper.c.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

STEPS=15
MARK_BASE=64	# mapper.c: the marker of step N maps file page MARK_BASE + N

bounded 30 pmclog record --no-kallsyms -o "$OUT/map.pmclog" -- /bin/mapper "$OUT" \
	>"$OUT/record.out" 2>"$OUT/record.err"
is "$?" 0 "pmclog record -- mapper exits 0" || diag "record: $(tail -n 3 "$OUT/record.err")"
dump_log "$OUT/map.pmclog" "$OUT/map.txt" || diag "dump: $(tail -n 3 "$OUT/map.txt.err")"

# Shared awk: hex to a number (addresses fit a double exactly).
H2D='function h2d(x,   i, v) {
	sub(/^0x/, "", x); x = tolower(x); v = 0
	for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return v }'

# /proc/PID/maps of step N: "start end offset path", decimal, sorted.
proc_maps() {
	awk "$H2D"'
	$2 ~ /x/ && $6 != "[vsyscall]" {
		split($1, r, "-")
		# The heap is anonymous memory to the collectors (step 14).
		p = $6
		if (p == "" || p == "[heap]") p = "[anon exec]"
		printf "%.0f %.0f %.0f %s\n", h2d(r[1]), h2d(r[2]), h2d($3), p
	}' "$OUT/maps-$1.txt" | sort
}

# The log replayed in tstamp order: at the marker of each step, the
# pid's executable maps as "STEP start end offset path", decimal.
log_maps() {
	awk '{ t = $3; sub(/^ts=/, "", t); printf "%s %08d %s\n", t, NR, $0 }' "$OUT/map.txt" |
		sort -n -k1,1 -k2,2 | cut -d' ' -f3- |
		awk -v pid="$1" -v base="$MARK_BASE" "$H2D"'
	# Cut [s, e) out of every map, keeping what lies outside it.  Keys
	# are "%.0f" strings: awks turn big numbers into "%.6g" keys.
	function put(a, b, o, p,   k) { k = sprintf("%.0f", a); S[k] = a; E[k] = b; O[k] = o; P[k] = p }
	function unmap(s, e,   k, a, b, o, p) {
		for (k in S) {
			a = S[k]; b = E[k]; o = O[k]; p = P[k]
			if (b <= s || a >= e) continue
			delete S[k]
			if (a < s) put(a, s, o, p)
			if (e < b) put(e, b, o + (e - a), p)
		}
	}
	{ delete f
	  for (i = 2; i <= NF; i++) { k = $i; v = $i; if (!sub(/=.*/, "", k)) continue; sub(/^[^=]*=/, "", v); f[k] = v }
	  # The path is the last field, and may hold spaces ("[anon exec]").
	  # The module says " (deleted)" as /proc/PID/maps does (whose path
	  # is taken up to its first blank), the BPF collector does not.
	  p = $0
	  if (sub(/.* path=/, "", p)) { sub(/ \(deleted\)$/, "", p); f["path"] = p } }
	f["pid"] != pid { next }
	$1 == "PROCEXEC" { for (k in S) delete S[k] }
	$1 == "MAP_IN" {
		s = h2d(f["start"]); o = h2d(f["offset"])
		if (f["path"] == "/bin/mapper" && o >= base * 4096 && o < (base + 100) * 4096) {
			for (k in S) printf "%d %.0f %.0f %.0f %s\n", o / 4096 - base, S[k], E[k], O[k], P[k]
			next
		}
		unmap(s, h2d(f["end"]))
		put(s, h2d(f["end"]), o, f["path"])
	}
	$1 == "MAP_OUT" { unmap(h2d(f["start"]), h2d(f["end"])) }'
}

pid=$(kv_awk -t PROCEXEC "$OUT/map.txt" '$1 == "PROCEXEC" && f["path"] == "/bin/mapper" { print f["pid"]; exit }')
[ -n "$pid" ] || bail "PROCEXEC of /bin/mapper is in the log"
log_maps "$pid" >"$OUT/log-maps.txt"
what="mprotect +exec|munmap of a middle page|mprotect -exec|mremap move|anonymous exec mapping|a munmap that fails (EINVAL)|a munmap and an mprotect that fail (ENOMEM)|a file mapping MAP_FIXED over exec|an anonymous mapping MAP_FIXED over exec|an exec mapping MAP_FIXED over exec|a MAP_FIXED mapping over exec that fails in the file's mmap op (EINVAL)|a System V segment attached SHM_EXEC|that segment detached (shmdt)|the heap grown executable (brk, READ_IMPLIES_EXEC)|the heap shrunk back (brk)"
step=1
while [ "$step" -le "$STEPS" ]; do
	desc=$(echo "$what" | cut -d'|' -f"$step")
	proc_maps "$step" >"$OUT/proc-$step.txt"
	awk -v n="$step" '$1 == n { $1 = ""; sub(/^ /, ""); print }' "$OUT/log-maps.txt" | sort >"$OUT/log-$step.txt"
	if [ -s "$OUT/proc-$step.txt" ] && cmp -s "$OUT/proc-$step.txt" "$OUT/log-$step.txt"; then
		ok "step $step ($desc): log = /proc/$pid/maps ($(wc -l <"$OUT/log-$step.txt") executable mappings)"
	else
		not_ok "step $step ($desc): log = /proc/$pid/maps"
		diag "  /proc: $(tr '\n' ';' <"$OUT/proc-$step.txt")"
		diag "  log:   $(tr '\n' ';' <"$OUT/log-$step.txt")"
	fi
	step=$((step + 1))
done
anon=$(grep -c "^MAP_IN .* pid=$pid .* flags=0x1 path=\[anon exec\]\$" "$OUT/map.txt")
is "$anon" 2 "the anonymous executable mapping and the heap's are MAP_INs flagged ANON, path [anon exec]"
