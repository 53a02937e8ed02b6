#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# perf and pmclog naming the same samples (issue #11's Done-when): each
# workload is recorded with `perf record -e cpu-clock:u`, turned into a
# pmclog log by perf2pmclog.py, and named by `perf report` and by
# `pmclog report`; the table gives each one's share of samples named (a
# function, not an address or [unknown]), and, joining perf script's
# samples with libpmclog's (tests/compare/samples.c) on (pid, time, pc),
# (perf2pmclog.py's log, plus the PROCFORK records pmclog record would
# have written: see add_forks), how many samples both name and how many of those they name differently:
# C++ names compared as perf 6.1 shows them without -v (no parameters),
# and PLT entries ("name@plt") counted apart: perf 6.1 numbers the .plt
# entries after .rela.plt's order and names the IRELATIVE ones "@plt",
# where pmclog decodes each entry's GOT slot (objdump -d -j .plt agrees
# with pmclog); and symbol versions of one function ("f@GLIBC_2.2.5" and
# "f@@GLIBC_2.34", aliases of one length: perf takes the first in the
# file, pmclog the default version) counted apart too.
#
#   tests/compare/perf-vs-pmclog.sh [-k] [WORKLOAD...]
#       WORKLOAD: shell, cxx, python (default: all three)
#       -k        keep the work directory (its path is printed)
#   PERF2PMCLOG=path/to/perf2pmclog.py (default /work/shared/tools/perf2pmclog.py)
#
# Needs perf (Debian's linux-perf), g++, Debian's /usr/bin/python3.11; libc6-dbg (and
# python3.11-dbg, libstdc++6-12-dbg) for the debug files both read.
# Not part of make check: it samples real programs for seconds.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
conv=${PERF2PMCLOG:-/work/shared/tools/perf2pmclog.py}
keep=0
if [[ ${1:-} == -k ]]; then keep=1; shift; fi
workloads=("$@")
((${#workloads[@]})) || workloads=(shell cxx python)

# Not /tmp/perf-*: perf takes files there for JIT maps, and names nothing in them.
work=$(mktemp -d /tmp/pmclog-vs-perf.XXXXXX)
if ((keep)); then echo "work directory: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

make -s -C "$repo/tools/pmclog" pmclog libpmclog.a >&2
pmclog=$repo/tools/pmclog/pmclog
# shellcheck disable=SC2046 # the libraries are words
cc -std=gnu11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$repo/include/uapi" \
	-I"$repo/tools/pmclog/lib" -o "$work/samples" "$repo/tests/compare/samples.c" \
	"$repo/tools/pmclog/libpmclog.a" \
	$(sed -n 's/^PMCLOG_LIBS[[:space:]]*:=//p' "$repo/tools/pmclog/libs.mk")

cat >"$work/cxx.cc" <<'CXX'
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>
int main()
{
	std::mt19937 rng(1);
	std::map<std::string, long> m;
	long sum = 0;
	for (int round = 0; round < 30; round++) {
		std::vector<long> v(200000);
		for (auto &x : v)
			x = (long)(rng() % 1000000);
		std::sort(v.begin(), v.end());
		for (int i = 0; i < 20000; i++)
			m[std::to_string(v[(size_t)i * 7 % v.size()])] += i;
		sum += v[v.size() / 2] + (long)m.size();
	}
	std::printf("%ld\n", sum);
	return 0;
}
CXX
g++ -O2 -g -o "$work/cxx" "$work/cxx.cc"

run_workload() {
	case $1 in
	shell) sh -c 'for i in $(seq 3000); do echo $i | grep -c 7 >/dev/null; done; true' ;;
	cxx) "$work/cxx" >/dev/null ;;
	python) /usr/bin/python3.11 -c '
d = {}
for i in range(3000000):
    d[i % 1000] = d.get(i % 1000, 0) + len(str(i))
print(sum(d.values()))' >/dev/null ;;
	*) echo "unknown workload $1 (shell, cxx, python)" >&2; return 64 ;;
	esac
}

export -f run_workload
export work

# perf2pmclog.py writes no PROCFORK: a forked child that does not exec
# (sh's subshells) would have no maps, where pmclog record logs its fork.
# Add one PROCFORK per perf FORK of a process, before the CLOSELOG.
add_forks() {
	perf script -i "$1" --show-task-events -F pid,time 2>/dev/null | python3 -c '
import re, struct, sys
log = sys.argv[1]
b = open(log, "rb").read()
assert b[-40] == 0xEE and b[-39] == 2, "the log does not end with CLOSELOG"
recs = []
FK = re.compile(r"\s([\d.]+): PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)")
for line in sys.stdin:
    m = FK.search(line)
    if not m or m.group(2) != m.group(3) or m.group(2) == m.group(4):
        continue
    ts = int(float(m.group(1)) * 1e9)
    recs.append(struct.pack("<BBHHBBQII", 0xEE, 8, 24, 0, 0, 0, ts,
                            int(m.group(4)), int(m.group(2))))
open(log, "wb").write(b[:-40] + b"".join(recs) + b[-40:])
' "$2"
}

printf '%-8s %8s %14s %14s %11s %12s %11s %14s\n' workload samples "perf named" "pmclog named" "both named" "named apart" "apart, PLT" "apart, version"
for w in "${workloads[@]}"; do
	data=$work/$w.data log=$work/$w.pmclog
	perf record -q -N -e cpu-clock:u -o "$data" -- bash -c "run_workload $w" >/dev/null 2>&1
	python3 "$conv" "$data" "$log" >/dev/null
	add_forks "$data" "$log"
	perf report -i "$data" --stdio --sort sym -n 2>/dev/null >"$work/$w.perf-report"
	"$pmclog" report -i "$log" >"$work/$w.pmclog-report" 2>"$work/$w.pmclog-stats"
	perf script -i "$data" -F pid,time,ip,sym 2>/dev/null >"$work/$w.perf-script"
	"$work/samples" "$log" >"$work/$w.pmclog-samples"
	python3 - "$work" "$w" <<'PY'
import re, sys
work, w = sys.argv[1], sys.argv[2]
# perf report: rows "  12.34%  56  [.] name"; an address is unnamed.
perf_total = perf_named = 0
for line in open(f'{work}/{w}.perf-report'):
    m = re.match(r'\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.*\S)', line)
    if not m:
        continue
    n = int(m.group(1))
    perf_total += n
    if not re.match(r'0x[0-9a-f]+$', m.group(2)):
        perf_named += n
st = open(f'{work}/{w}.pmclog-stats').read()
m = re.search(r'(\d+) samples: (\d+) resolved', st)
pm_total, pm_named = int(m.group(1)), int(m.group(2))

def norm(s):
    s = s.strip()
    if s.startswith('[unknown]') or re.match(r'0x[0-9a-f]+$', s) or s == '-':
        return None
    return s
perf = {}
SM = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+([0-9a-f]+)\s*(.*)$')
for line in open(f'{work}/{w}.perf-script'):
    m = SM.match(line)
    if m:
        key = (int(m.group(1)), int(float(m.group(2)) * 1e9), int(m.group(3), 16))
        perf[key] = norm(m.group(4))
both = apart = plt = ver = 0
diffs = {}
for line in open(f'{work}/{w}.pmclog-samples'):
    pid, ts, pc, name = line.rstrip('\n').split(' ', 3)
    key = (int(pid), int(ts), int(pc, 16))
    p, q = perf.get(key), norm(name)
    if p is None or q is None:
        continue
    both += 1
    if p != q:
        if p.endswith('@plt') and q.endswith('@plt'):
            plt += 1
        elif p.split('@')[0] == q.split('@')[0]:
            ver += 1
        else:
            apart += 1
        diffs[(p, q)] = diffs.get((p, q), 0) + 1
pct = lambda a, b: f'{100.0 * a / b:5.1f}%' if b else '  -  '
print(f'{w:<8} {pm_total:8d} {perf_named:6d} {pct(perf_named, perf_total)} '
      f'{pm_named:6d} {pct(pm_named, pm_total)} {both:11d} {apart:12d} {plt:11d} {ver:14d}')
for (p, q), n in sorted(diffs.items(), key=lambda x: -x[1])[:10]:
    print(f'         apart: {n} samples: perf "{p}", pmclog "{q}"')
PY
done
