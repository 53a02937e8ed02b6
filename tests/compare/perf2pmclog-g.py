#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf2pmclog-g.py: a perf.data recorded with -g as a pmclog log with stacks (ABI 1.5).

usage: perf2pmclog-g.py PERF.DATA OUT.pmclog

/work/shared/tools/perf2pmclog.py converts samples and maps, not callchains; this
one also writes a CALLCHAIN after each PCSAMPLE, and PROCEXEC/PROCFORK/PROCEXIT
from perf's COMM exec/FORK/EXIT, so that `perf script` and `pmclog script` can
be compared sample by sample (tests/compare/perf-script-vs-pmclog.sh).

It reads `perf script --ns --show-mmap-events --show-task-events -F
pid,tid,time,ip,dso,period` of user-mode samples (perf record -e cpu-clock:u).
perf prints a user frame's address in its file (map_ip: ip - start + pgoff):
the address the process ran at is found again from the executable MMAP2 of
that file in that process.
"""
import re, struct, subprocess, sys

MAGIC = 0xEE
T_INIT, T_CLOSE, T_ALLOC, T_SAMPLE, T_MAPIN = 1, 2, 3, 4, 5
T_EXEC, T_FORK, T_EXIT, T_CALLCHAIN = 7, 8, 9, 15
HF_USER = 1
EV_CPU_CLOCK = 1
PMC_F_FREQ, PMC_F_USER, PMC_F_CALLCHAIN = 0x1, 0x2, 0x8
ABI = (1 << 24) | (5 << 16)


def hdr(t, length, ts, cpu=0, flags=0, pmcid=0):
    return struct.pack('<BBHHBBQ', MAGIC, t, length, cpu, flags, pmcid, ts)


def pad8(b):
    return b + b'\0' * ((-len(b)) % 8)


def with_path(t, ts, head, path):
    body = head + pad8(path.encode() + b'\0')
    return hdr(t, 16 + len(body), ts) + body


# pid/tid [cpu] time: ([cpu] only from a system-wide record; cpu 0 without it)
PFX = r'^\s*(-?\d+)/(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):'
MMAP = re.compile(PFX + r' PERF_RECORD_MMAP2? (-?\d+)/-?\d+: '
                  r'\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0)[^\]]*\]: (\S+) (.*)$')
COMM = re.compile(PFX + r' PERF_RECORD_COMM exec: (.*):(\d+)/(\d+)$')
FORK = re.compile(PFX + r' PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)$')
EXIT = re.compile(PFX + r' PERF_RECORD_EXIT\((\d+):(\d+)\):\((\d+):(\d+)\)$')
SAMPLE = re.compile(PFX + r'\s+(\d+)\s*$')
FRAME = re.compile(r'^\s+([0-9a-f]+) \((.*)\)$')


def ns(t):
    s, f = t.split('.')
    return int(s) * 1000000000 + int(f.ljust(9, '0')[:9])


def main():
    src, dst = sys.argv[1], sys.argv[2]
    out = subprocess.run(['perf', 'script', '-i', src, '--ns', '--show-mmap-events',
                          '--show-task-events', '-F', 'pid,tid,time,ip,dso,period'],
                         capture_output=True, text=True, check=True).stdout
    recs = []          # (ts, seq, bytes)
    maps = {}          # pid -> [(start, end, pgoff, path)]
    nsamples = 0
    period = None
    cur = None         # the sample being read: (ts, pid, tid, cpu, [pc])

    def flush():
        nonlocal cur, nsamples
        if not cur:
            return
        ts, pid, tid, cpu, pcs = cur
        cur = None
        if not pcs:
            return
        nsamples += 1
        recs.append((ts, len(recs), hdr(T_SAMPLE, 32, ts, cpu, HF_USER, 1) +
                     struct.pack('<IIQ', pid, tid, pcs[0])))
        body = struct.pack('<IIHHI', pid, tid, 0, len(pcs), 0) + \
            b''.join(struct.pack('<Q', pc) for pc in pcs)
        recs.append((ts, len(recs), hdr(T_CALLCHAIN, 16 + len(body), ts, cpu, HF_USER, 1) + body))

    for line in out.splitlines():
        if not line.strip():
            flush()
            continue
        m = MMAP.match(line)
        if m:
            flush()
            pid, ts = int(m.group(5)), ns(m.group(4))
            start, ln, off = int(m.group(6), 16), int(m.group(7), 16), int(m.group(8), 16)
            prot, path = m.group(9), m.group(10).strip()
            if 'x' not in prot or pid < 0:
                continue
            maps.setdefault(pid, []).append((start, start + ln, off, path))
            recs.append((ts, len(recs), with_path(T_MAPIN, ts, struct.pack(
                '<IIQQQ', pid, 0, start, start + ln, off), path)))
            continue
        m = COMM.match(line)
        if m:
            flush()
            ts, pid = ns(m.group(4)), int(m.group(6))
            maps[pid] = []
            recs.append((ts, len(recs), with_path(T_EXEC, ts, struct.pack('<II', pid, 0),
                                                  m.group(5))))
            continue
        m = FORK.match(line)
        if m:
            flush()
            ts, pid, ppid = ns(m.group(4)), int(m.group(5)), int(m.group(7))
            if pid == int(m.group(6)) and pid != ppid:     # a process, not a thread
                maps[pid] = list(maps.get(ppid, []))
                recs.append((ts, len(recs), hdr(T_FORK, 24, ts) + struct.pack('<II', ppid, pid)))
            continue
        m = EXIT.match(line)
        if m:
            flush()
            ts, pid = ns(m.group(4)), int(m.group(5))
            if pid == int(m.group(6)):
                recs.append((ts, len(recs), hdr(T_EXIT, 24, ts) + struct.pack('<II', pid, 0)))
            continue
        m = SAMPLE.match(line)
        if m:
            flush()
            cur = (ns(m.group(4)), int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), [])
            period = period or int(m.group(5))
            continue
        m = FRAME.match(line)
        if m and cur:
            addr, dso = int(m.group(1), 16), m.group(2)
            for start, end, off, path in maps.get(cur[1], []):
                if path == dso and start <= addr - off + start < end:
                    addr = addr - off + start
                    break
            cur[4].append(addr)
    flush()
    if not nsamples:
        sys.exit('perf2pmclog-g: no samples with a stack read from ' + src)
    recs.sort()
    t0 = recs[0][0] - 1000
    hz = max(1, round(1e9 / period)) if period else 1000
    with open(dst, 'wb') as f:
        f.write(hdr(T_INIT, 56, t0) + struct.pack('<IIHBBBBHQ16s', ABI, 2, 1, 1, 6, 85, 4, 0,
                                                  1700000000000000000, b'GenuineIntel'))
        f.write(hdr(T_ALLOC, 72, t0, pmcid=1) + struct.pack(
            '<IIQQ32s', EV_CPU_CLOCK, PMC_F_FREQ | PMC_F_USER | PMC_F_CALLCHAIN, 0, hz, b'cpu-clock'))
        for _, _, b in recs:
            f.write(b)
        f.write(hdr(T_CLOSE, 40, recs[-1][0]) + struct.pack('<QQQ', nsamples, 0, 0))


if __name__ == '__main__':
    main()
