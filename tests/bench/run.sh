#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: pmclog's figures, natively and in one VM boot, with perf's
# beside them where perf can run.  Prints a table (median, min, ratio) and
# writes build/bench/bench.json; README.md ("Benchmark") explains each
# figure.  Figures only: nothing here passes or fails on a number.
#
#   native   `pmclog report` of a generated log of BENCH_SAMPLES (10
#            million) samples (genlog.c): wall time and peak RSS
#            (/usr/bin/time -v), BENCH_NATIVE_ROUNDS (3) runs; the
#            module's sample path built for userland (sample_path.c,
#            kshim/) under callgrind: instructions per sample; and
#            the recorder's: libpmclog's writer as pmclog record drives
#            it (recorder_path.c), packed, unpacked and packed with -z
#   VM       tests/vm/run.sh boots BENCH_KERNEL (6.1-cloud) once with
#            tests/bench/vm/10-bench.sh: xz bare / under perf record /
#            under pmclog record / under pmclog record --bpf (the BPF
#            collector) in each of BENCH_MODES (process system stacks;
#            stacks: process mode with -g) at each of BENCH_RATES (1000
#            4000 10000; stacks at BENCH_STACKS_RATES, 4000), BENCH_ROUNDS
#            (5) interleaved rounds; mmaploop.c's BENCH_MMAP_OPS (20000)
#            mmaps and munmaps of an executable page under each,
#            BENCH_MMAP_ROUNDS (10) rounds (a loop moves with the host
#            more than xz does, and takes a few seconds); the
#            highest drop-free rate of each, system-wide over two busy
#            CPUs, from BENCH_SWEEP_RATES (10000 20000 40000 80000).  perf
#            is Debian's linux-perf, unpacked into build/bench/perf-root
#            (apt-get download, dpkg-deb -x: never installed); without it,
#            pmclog's figures alone
#
# BENCH_VM=0 skips the VM part, BENCH_NATIVE=0 the native one;
# BENCH_INPUT_KB (1024) is how much of /bin/busybox xz compresses;
# BENCH_ICOUNT=shift=0,sleep=off boots QEMU with that -icount: the
# guest's clock then counts the instructions its vCPUs run (one thread
# runs them all, in turn), so that a figure is the same from run to run
# and host to host, and a tool's work on the other CPU counts as if it
# ran on the workload's (README, "Benchmark").
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/bench
vmres=${PMCLOG_BUILD:-$repo/build}/vm/results
samples=${BENCH_SAMPLES:-10000000}
native_rounds=${BENCH_NATIVE_ROUNDS:-3}
kernel=${BENCH_KERNEL:-6.1-cloud}
rates=${BENCH_RATES:-1000 4000 10000}
rounds=${BENCH_ROUNDS:-5}
modes=${BENCH_MODES-process system stacks}
stacks_rates=${BENCH_STACKS_RATES:-4000}
input_kb=${BENCH_INPUT_KB:-1024}
mmap_ops=${BENCH_MMAP_OPS:-20000}
mmap_rounds=${BENCH_MMAP_ROUNDS:-10}
sweep_rates=${BENCH_SWEEP_RATES-10000 20000 40000 80000}
icount=${BENCH_ICOUNT:-}
mkdir -p "$out"
log() { echo "bench: $*" >&2; }

make -s -C "$repo/tools/pmclog" >/dev/null
cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$repo/include/uapi" \
	-o "$out/genlog" "$repo/tests/bench/genlog.c"
for p in timeit mmaploop; do
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
		-o "$out/$p" "$repo/tests/bench/$p.c"
done
pmclog=$repo/tools/pmclog/pmclog
: >"$out/native.txt"

# ------------------------------------------------------------------
# Native: the report of a long log.

if [[ ${BENCH_NATIVE:-1} != 0 ]]; then
	nlog=$out/native-$samples.pmclog
	if [[ ! -s $nlog ]]; then
		log "generating $nlog ($samples samples)"
		"$out/genlog" -n "$samples" "$nlog" "$pmclog" /lib/x86_64-linux-gnu/libc.so.6 >&2
	fi
	for ((i = 1; i <= native_rounds; i++)); do
		/usr/bin/time -v "$pmclog" report -i "$nlog" >/dev/null 2>"$out/native-time.txt"
		awk -v s="$samples" -v bytes="$(stat -c %s "$nlog")" '
			/Elapsed \(wall clock\)/ { n = split($NF, a, ":"); t = 0
				for (i = 1; i <= n; i++) t = t * 60 + a[i] }
			/Maximum resident set size/ { rss = $NF }
			END { printf "native samples=%d bytes=%d secs=%.3f rss_kb=%d\n", s, bytes, t, rss }' \
			"$out/native-time.txt" >>"$out/native.txt"
		log "native report $i/$native_rounds: $(tail -n 1 "$out/native.txt")"
	done
fi

# ------------------------------------------------------------------
# Native: the sample path's instructions under callgrind.

if [[ ${BENCH_NATIVE:-1} != 0 ]]; then
	cc -std=gnu11 -O2 -g -Wall -Werror -Wno-unused-parameter \
		-I"$repo/tests/kshim" -I"$repo/kmod" -I"$repo/include/uapi" \
		-o "$out/sample_path" "$repo/tests/bench/sample_path.c" \
		"$repo/kmod/pmclog_sample.c" "$repo/kmod/pmclog_record.c" "$repo/kmod/pmclog_log.c" \
		"$repo/tests/kshim/kshim.c" "$repo/tests/kshim/kshim_sample.c"
	if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
		cg_n=200000
		valgrind -q --tool=callgrind --callgrind-out-file="$out/callgrind.out" \
			"$out/sample_path" "$cg_n" 20000 >&2
		callgrind_annotate --inclusive=yes "$out/callgrind.out" 2>/dev/null |
			awk -v n="$cg_n" '
			function num(s) { gsub(/,/, "", s); return s + 0 }
			# Each function once, with what it inlined from any file:
			# the largest of its inclusive lines.
			$2 ~ /\(/ && match($3, /:pmclog_sample_(take|drain_work|drain_now)$/) {
				f = substr($3, RSTART + 1); if (num($1) > ir[f]) ir[f] = num($1) }
			END { printf "callgrind samples=%d take_ir=%.1f drain_ir=%.1f\n", n,
				ir["pmclog_sample_take"] / n,
				(ir["pmclog_sample_drain_work"] + ir["pmclog_sample_drain_now"]) / n }' \
			>>"$out/native.txt"
		log "sample path: $(tail -n 1 "$out/native.txt")"
	else
		log "no valgrind: the sample path's instructions are not counted"
	fi
fi

# ------------------------------------------------------------------
# Native: the recorder's instructions per sample under callgrind, as
# pmclog record saves (packed, the default; unpacked; packed with -z).

if [[ ${BENCH_NATIVE:-1} != 0 ]] && command -v valgrind >/dev/null &&
	command -v callgrind_annotate >/dev/null; then
	libs=$(sed -n 's/^PMCLOG_LIBS[[:space:]]*:=[[:space:]]*//p' "$repo/tools/pmclog/libs.mk")
	# shellcheck disable=SC2086 # libs: words for the linker
	cc -std=gnu11 -O2 -g -Wall -Wextra -Werror \
		-I"$repo/include/uapi" -I"$repo/tools/pmclog/lib" \
		-o "$out/recorder_path" "$repo/tests/bench/recorder_path.c" \
		"$repo/tools/pmclog/libpmclog.a" $libs
	rp_n=200000
	for cfg in "0 1 packed" "0 0 unpacked" "1 1 packed-z"; do
		read -r level pack name <<<"$cfg"
		valgrind -q --tool=callgrind --callgrind-out-file="$out/callgrind-recorder.out" \
			"$out/recorder_path" "$rp_n" "$level" "$pack" >"$out/recorder_path.txt"
		callgrind_annotate --inclusive=yes "$out/callgrind-recorder.out" 2>/dev/null |
			awk -v n="$rp_n" -v name="$name" -v info="$(cat "$out/recorder_path.txt")" '
			function num(s) { gsub(/,/, "", s); return s + 0 }
			$2 ~ /\(/ && match($3, /:pmclog_writer__(write|finish)$/) {
				f = substr($3, RSTART + 1); if (num($1) > ir[f]) ir[f] = num($1) }
			END { split(info, a, /[ =]/)
				for (i = 1; i < length(a); i++) kv[a[i]] = a[i + 1]
				printf "recorder %s samples=%d ir=%.1f bytes=%.2f\n", name, n,
					(ir["pmclog_writer__write"] + ir["pmclog_writer__finish"]) / n,
					kv["file"] / n }' >>"$out/native.txt"
		log "recorder: $(tail -n 1 "$out/native.txt")"
	done
fi

# ------------------------------------------------------------------
# The VM: xz under perf and pmclog.

bench_txt=
if [[ ${BENCH_VM:-1} != 0 ]]; then
	perf=
	root=$out/perf-root
	if [[ ! -x $root/usr/bin/perf ]]; then
		rm -rf "$root" "$out"/linux-perf_*.deb
		# As root, apt would fall back from its _apt sandbox user (who
		# may not reach build/) with a warning: say so up front.
		sandbox=()
		((EUID != 0)) || sandbox=(-o APT::Sandbox::User=root)
		if (cd "$out" && apt-get download -q "${sandbox[@]}" linux-perf >&2) &&
			dpkg-deb -x "$out"/linux-perf_*.deb "$root"; then
			log "perf unpacked into ${root#"$repo"/}"
		else
			log "could not download linux-perf: pmclog's figures only"
		fi
	fi
	if [[ -x $root/usr/bin/perf ]]; then
		if ldd "$root/usr/bin/perf" | grep -q 'not found'; then
			log "perf lacks libraries here ($(ldd "$root/usr/bin/perf" | grep 'not found' | awk '{print $1}' | paste -sd' ')): pmclog's figures only"
		else
			perf=$root/usr/bin/perf
		fi
	fi
	printf 'ROUNDS=%s\nRATES="%s"\nMODES="%s"\nSTACKS_RATES="%s"\nINPUT_KB=%s\nMMAP_OPS=%s\nMMAP_ROUNDS=%s\nSWEEP_RATES="%s"\nICOUNT="%s"\n' \
		"$rounds" "$rates" "$modes" "$stacks_rates" "$input_kb" "$mmap_ops" "$mmap_rounds" "$sweep_rates" "$icount" >"$out/bench.conf"
	rm -f "$vmres"/*/10-bench/bench.txt
	# The guest's clock is its TSC, as on any x86 machine of today.
	# Under TCG the boot's TSC sync check calls QEMU's TSC (one host
	# clock for all vCPUs) unsynchronized, and the kernel falls back to
	# HPET: every clock read then traps into QEMU's device model, a few
	# us each, and each tool pays for the reads it makes (pmclog stamps
	# records with CLOCK_MONOTONIC, perf with sched_clock(), the TSC).
	PMCLOG_VM_CMDLINE="tsc=reliable${icount:+ maxcpus=1}" PMCLOG_VM_QEMU="${icount:+-icount $icount}" \
	PMCLOG_VM_SCENARIO_DIR=$repo/tests/bench/vm \
	PMCLOG_VM_EXTRA="$out/timeit $out/mmaploop /usr/bin/xz $out/bench.conf $perf" \
		"$repo/tests/vm/run.sh" --kernels "$kernel" >"$out/vm.log" 2>&1 ||
		log "the VM run reported failures: see ${out#"$repo"/}/vm.log"
	bench_txt=$(ls -t "$vmres"/*/10-bench/bench.txt 2>/dev/null | head -n 1)
	if [[ -n $bench_txt ]]; then
		cp "$bench_txt" "$out/vm.txt"
		bench_txt=$out/vm.txt
	else
		log "no bench.txt came back from the VM: see ${out#"$repo"/}/vm.log"
	fi
fi

# ------------------------------------------------------------------
# The table and the JSON.

awk -v json="$out/bench.json" -v kernel="$kernel" -f "$repo/tests/bench/table.awk" \
	"$out/native.txt" ${bench_txt:+"$bench_txt"}
log "wrote ${out#"$repo"/}/bench.json"
