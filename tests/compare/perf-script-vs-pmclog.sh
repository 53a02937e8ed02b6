#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pmclog script and report --format pprof on the samples of a real
# program, against perf's: a program built with frame pointers (main ->
# path_a and path_b -> hot, and a function of a library it dlopens,
# dlcloses and opens again) is recorded with `perf record -g -e
# cpu-clock:u`, turned into a pmclog log with its stacks by
# perf2pmclog-g.py, and
#
#   - `perf script -F comm,tid,time,ip,sym,symoff,dso` and `pmclog script`
#     with the same fields must print the same lines, every sample, every
#     frame (comm, tid, time, addresses, names and offsets, objects);
#   - `pmclog report --format pprof`, read by Go's pprof (go tool pprof
#     -raw), must hold every sample, with the stacks of --format folded.
#
# make check runs it (a second of sampling); the comparison is exact
# whatever perf sampled.
# Where pmclog script's text differs from perf's by design (the period,
# the event's name, the events' lines), pmclog(1) says; those fields are
# left out here.  Prints TAP; exits 1 when a test fails, 4 (skipped) where
# perf cannot record (perf_event_paranoid, no perf).
#
#   tests/compare/perf-script-vs-pmclog.sh [-k]     -k: keep the work directory
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
keep=0
[[ ${1:-} == -k ]] && keep=1
work=$(mktemp -d /tmp/pmclog-script-vs-perf.XXXXXX)
if ((keep)); then echo "# work directory: $work"; else trap 'rm -rf "$work"' EXIT; fi

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

if ! command -v perf >/dev/null; then
	echo "1..0 # SKIP no perf (Debian's linux-perf)"
	exit 4
fi
make -s -C "$repo/tools/pmclog" pmclog >&2 || { echo "Bail out! cannot build pmclog"; exit 1; }
pmclog=$repo/tools/pmclog/pmclog

cat >"$work/prog.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
__attribute__((noinline)) unsigned long hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
__attribute__((noinline)) unsigned long path_a(void) { return hot(2000000) + 1; }
__attribute__((noinline)) unsigned long path_b(void) { return hot(1000000) + 1; }
int main(int argc, char **argv)
{
	unsigned long s = 0;

	(void)argc;
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		unsigned long (*lib_hot)(unsigned long) = h ? (unsigned long (*)(unsigned long))dlsym(h, "lib_hot") : NULL;

		if (!lib_hot) {
			fprintf(stderr, "prog: %s\n", dlerror());
			return 1;
		}
		for (int i = 0; i < 40; i++)
			s += path_a() + path_b() + lib_hot(1000000);
		dlclose(h);
	}
	return (int)(s & 1);
}
C
cat >"$work/lib.c" <<'C'
__attribute__((noinline)) unsigned long lib_hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}
C
cc -O0 -g -fno-omit-frame-pointer -o "$work/prog" "$work/prog.c" -ldl &&
	cc -O0 -g -fno-omit-frame-pointer -fPIC -shared -o "$work/libcg.so" "$work/lib.c" ||
	{ echo "Bail out! cannot build the program"; exit 1; }

if ! perf record -q -g -e cpu-clock:u -F 999 -o "$work/perf.data" -- \
	"$work/prog" "$work/libcg.so" >/dev/null 2>"$work/perf.err"; then
	echo "1..0 # SKIP perf record cannot record here: $(head -c 200 "$work/perf.err")"
	exit 4
fi
if ! python3 "$repo/tests/compare/perf2pmclog-g.py" "$work/perf.data" "$work/prof.pmclog" \
	2>"$work/conv.err"; then
	echo "Bail out! perf2pmclog-g.py: $(head -c 300 "$work/conv.err")"
	exit 1
fi

# --- pmclog script is perf script
fields=comm,tid,time,ip,sym,symoff,dso
perf script -i "$work/perf.data" -F $fields >"$work/perf.txt" 2>/dev/null
"$pmclog" script -F $fields "$work/prof.pmclog" >"$work/pmclog.txt" 2>"$work/script.err"
samples=$(grep -c '^[^[:space:]]' "$work/perf.txt")
if ((samples >= 50)); then ok "perf recorded $samples samples"; else
	not_ok "perf recorded $samples samples, fewer than 50"; fi
# One difference by design: a return address at the first byte of a
# symbol (the call was its caller's last instruction, as in ld.so's
# _start, whose call to _dl_start returns to _dl_start_user) perf names
# after that symbol, "_dl_start_user+0x0"; pmclog after the caller it
# returns into, "_start+0x8", as it names every return address from the
# byte before it.  Only a sample taken during ld.so's start has one: such
# a line of perf's is taken as pmclog's when the address and the object
# are the same.
awk 'NR == FNR { mine[FNR] = $0; next }
	!/^[[:space:]]/ { depth = 0; print; next }
	{ depth++ }
	depth > 1 && / [^ ]+\+0x0 \(/ {
		n = split(mine[FNR], m, " ")
		if (m[1] == $1 && m[n] == $NF && mine[FNR] != $0) { print mine[FNR]; boundary++; next }
	}
	{ print }
	END { print boundary + 0 >"/dev/stderr" }' "$work/pmclog.txt" "$work/perf.txt" \
	>"$work/perf.cmp" 2>"$work/boundary.n"
if cmp -s "$work/perf.cmp" "$work/pmclog.txt"; then
	ok "pmclog script -F $fields is perf script's, line by line ($(wc -l <"$work/perf.txt") lines; $(cat "$work/boundary.n") return addresses at a symbol's first byte named after their caller)"
else
	not_ok "pmclog script differs from perf script: $(diff "$work/perf.cmp" "$work/pmclog.txt" | head -n 6)"
fi
for fn in hot path_a path_b main lib_hot; do
	if grep -q " $fn+0x" "$work/pmclog.txt"; then ok "pmclog script names $fn"; else
		not_ok "pmclog script names $fn"; fi
done
# Both lib_hot's loads: the library's frames keep their names after dlclose.
"$pmclog" script --show-mmap-events "$work/prof.pmclog" >"$work/events.txt" 2>/dev/null
loads=$(grep -c "PERF_RECORD_MMAP2 .*libcg.so" "$work/events.txt")
if ((loads == 2)); then ok "--show-mmap-events: libcg.so mapped twice"; else
	not_ok "--show-mmap-events: libcg.so mapped $loads times, not 2"; fi
after=$(awk '/PERF_RECORD_MMAP2 .*libcg.so/ { n++ } n == 2 && / lib_hot\+0x/ { c++ } END { print c + 0 }' \
	"$work/events.txt")
if ((after > 0)); then ok "lib_hot named in $after frames after the second dlopen"; else
	not_ok "lib_hot not named after the second dlopen"; fi

# --- pprof: Go's reader, against folded
if ! command -v go >/dev/null; then
	not_ok "go tool pprof: no go (golang-go; scripts/install-deps.sh)"
else
	"$pmclog" report -q --format pprof -o "$work/prof.pb.gz" "$work/prof.pmclog"
	"$pmclog" report -q --format folded "$work/prof.pmclog" >"$work/folded"
	HOME=$work go tool pprof -raw -symbolize=none "$work/prof.pb.gz" >"$work/raw" 2>"$work/raw.err"
	total=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && /^ *[0-9]+ +[0-9]+: / { t += $1 } END { print t + 0 }' "$work/raw")
	folded_total=$(awk '{ t += $NF } END { print t + 0 }' "$work/folded")
	if ((total == samples && folded_total == samples)); then
		ok "go tool pprof: $total samples, folded's $folded_total, perf's $samples"
	else
		not_ok "go tool pprof: $total samples, folded's $folded_total, perf's $samples ($(head -c 200 "$work/raw.err"))"
	fi
	# The stacks: -raw's samples (values, then location ids leaf first) as folded lines.
	awk '
		/^Samples:/ { s = 1; next }
		/^Locations/ { s = 0; l = 1; next }
		/^Mappings/ { l = 0; next }
		s && /^ *[0-9]+ +[0-9]+: / { n++; cnt[n] = $1; sub(/^[^:]*: */, ""); ids[n] = $0; next }
		s && /comm:\[/ { c = $0; sub(/.*comm:\[/, "", c); sub(/\].*/, "", c); comm[n] = c; next }
		# A location without a function is a frame not named (folded: [unknown]).
		l && /^ *[0-9]+: / { id = $1; sub(/:/, "", id); name[id] = NF >= 4 ? $4 : "[unknown]" }
		END {
			for (i = 1; i <= n; i++) {
				k = split(ids[i], v, " ")
				if (k < 1) continue
				line = comm[i]
				for (j = k; j >= 1; j--) line = line ";" name[v[j]]
				agg[line] += cnt[i]
			}
			for (line in agg) print line, agg[line]
		}' "$work/raw" | sort >"$work/pprof.folded"
	sort "$work/folded" >"$work/folded.sorted"
	if cmp -s "$work/pprof.folded" "$work/folded.sorted"; then
		ok "go tool pprof's stacks are folded's ($(wc -l <"$work/folded") stacks)"
	else
		not_ok "go tool pprof's stacks differ from folded's: $(diff "$work/folded.sorted" "$work/pprof.folded" | head -n 6)"
	fi
fi

echo "1..$n"
exit $((failed ? 1 : 0))
