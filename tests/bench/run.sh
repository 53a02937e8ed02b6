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
#            kshim/) under callgrind: instructions per sample
#   VM       tests/vm/run.sh boots BENCH_KERNEL (6.1-cloud) once with
#            tests/bench/vm/10-bench.sh: xz bare / under perf record /
#            under pmclog record / under pmclog record --bpf (the BPF
#            collector) at each of BENCH_RATES, BENCH_ROUNDS (5)
#            interleaved rounds; perf is Debian's linux-perf, unpacked
#            into build/bench/perf-root (apt-get download, dpkg-deb -x:
#            never installed); without it, pmclog's figures alone
#
# BENCH_VM=0 skips the VM part, BENCH_NATIVE=0 the native one;
# BENCH_INPUT_KB (2048) is how much of /bin/busybox xz compresses.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/bench
vmres=${PMCLOG_BUILD:-$repo/build}/vm/results
samples=${BENCH_SAMPLES:-10000000}
native_rounds=${BENCH_NATIVE_ROUNDS:-3}
kernel=${BENCH_KERNEL:-6.1-cloud}
rates=${BENCH_RATES:-1000 4000 10000}
rounds=${BENCH_ROUNDS:-5}
input_kb=${BENCH_INPUT_KB:-2048}
mkdir -p "$out"
log() { echo "bench: $*" >&2; }

make -s -C "$repo/tools/pmclog" >/dev/null
cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$repo/include/uapi" \
	-o "$out/genlog" "$repo/tests/bench/genlog.c"
cc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$out/timeit" "$repo/tests/bench/timeit.c"
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
		-I"$repo/tests/bench/kshim" -I"$repo/kmod" -I"$repo/include/uapi" \
		-o "$out/sample_path" "$repo/tests/bench/sample_path.c" \
		"$repo/kmod/pmclog_sample.c" "$repo/kmod/pmclog_record.c" "$repo/kmod/pmclog_log.c"
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
	printf 'ROUNDS=%s\nRATES="%s"\nINPUT_KB=%s\n' "$rounds" "$rates" "$input_kb" >"$out/bench.conf"
	rm -f "$vmres"/*/10-bench/bench.txt
	PMCLOG_VM_SCENARIO_DIR=$repo/tests/bench/vm \
	PMCLOG_VM_EXTRA="$out/timeit /usr/bin/xz $out/bench.conf $perf" \
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

awk -v json="$out/bench.json" -v kernel="$kernel" '
function med(key,   n, i, j, t, a) {
	n = cnt[key]
	if (!n) return -1
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function mn(key,   n, i, m) {
	n = cnt[key]; if (!n) return -1
	m = val[key, 1]; for (i = 2; i <= n; i++) if (val[key, i] < m) m = val[key, i]
	return m
}
function add(key, v) { val[key, ++cnt[key]] = v }
function kv(line, k,   m) { return match(line, " " k "=[^ ]*") ? substr(line, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "" }
function fmt(v, f) { return v < 0 ? "-" : sprintf(f, v) }
function jnum(v) { return v < 0 ? "null" : sprintf("%.6g", v) }
FNR == 1 && /^have_perf=/ { have_perf = kv(" " $0, "have_perf") + 0 }
/^native / { add("native_secs", kv($0, "secs")); add("native_rss", kv($0, "rss_kb") / 1024)
	nsamples = kv($0, "samples"); nbytes = kv($0, "bytes") }
/^callgrind / { cg_take = kv($0, "take_ir"); cg_drain = kv($0, "drain_ir") }
/^run / {
	t = kv($0, "tool"); r = kv($0, "rate"); rateseen[r] = 1
	add(t SUBSEP r SUBSEP "whole", kv($0, "whole_ns") / 1e9)
	add(t SUBSEP r SUBSEP "own", kv($0, "own_ns") / 1e9)
	s[t, r] += kv($0, "samples"); lost[t, r] += kv($0, "lost_samples")
	lostrec[t, r] += kv($0, "lost_records"); bytes[t, r] += kv($0, "bytes")
	if (kv($0, "report_ns") > 0) { add(t SUBSEP r SUBSEP "report", kv($0, "report_ns") / 1e9); rep_rate[t] = r }
	runs++
}
END {
	tool[1] = "perf"; tool[2] = "pmclog"; tool[3] = "bpf"
	printf "\npmclog bench (%s)\n\n", strftime("%Y-%m-%d %H:%M UTC", systime(), 1)
	printf "%-44s %-22s %-22s %-22s %s\n", "figure", "perf", "pmclog", "pmclog --bpf", "pmclog vs perf (--bpf)"
	printf "%-44s %-22s %-22s %-22s %s\n", "------", "----", "------", "------------", "----------------------"
	j = "{\n  \"kernel\": \"" kernel "\",\n  \"native\": {"
	if (cnt["native_secs"]) {
		printf "%-44s %-22s %-22s %-22s %s\n", sprintf("report, %d M samples natively: s (med/min)", nsamples / 1e6), "-",
			sprintf("%.2f / %.2f", med("native_secs"), mn("native_secs")), "-", "goal < 5 s"
		printf "%-44s %-22s %-22s %-22s %s\n", "  peak memory, MB (med/min)", "-",
			sprintf("%.1f / %.1f", med("native_rss"), mn("native_rss")), "-", "goal < 200 MB"
		j = j sprintf("\"samples\": %d, \"log_bytes\": %d, \"report_s_median\": %s, \"report_s_min\": %s, \"peak_rss_mb_median\": %s, \"peak_rss_mb_min\": %s, \"runs\": %d",
			nsamples, nbytes, jnum(med("native_secs")), jnum(mn("native_secs")), jnum(med("native_rss")), jnum(mn("native_rss")), cnt["native_secs"])
	}
	if (cg_take != "") {
		printf "%-44s %-22s %-22s %-22s %s\n", "sample path, instructions per sample", "-",
			sprintf("%.0f + %.0f drain", cg_take, cg_drain), "-", "callgrind, 20 kHz, one CPU"
		j = j sprintf(", \"sample_take_instructions\": %s, \"sample_drain_instructions\": %s", cg_take, cg_drain)
	}
	j = j "},\n  \"vm\": ["
	nr = 0
	for (r in rateseen) rl[++nr] = r + 0
	for (i = 2; i <= nr; i++) { t = rl[i]; for (k = i - 1; k >= 1 && rl[k] > t; k--) rl[k + 1] = rl[k]; rl[k + 1] = t }
	for (i = 1; i <= nr; i++) {
		r = rl[i]
		for (w = 1; w <= 2; w++) {
			what = w == 1 ? "whole" : "own"
			b = med("bare" SUBSEP r SUBSEP what)
			line = sprintf("%g kHz, %s: x bare (med/min)", r / 1000, w == 1 ? "whole command" : "xz alone")
			for (ti = 1; ti <= 3; ti++) {
				t = tool[ti]
				m = med(t SUBSEP r SUBSEP what); x = mn(t SUBSEP r SUBSEP what)
				cell[t] = m < 0 || b <= 0 ? "-" : sprintf("x%.2f / x%.2f", m / b, x / mn("bare" SUBSEP r SUBSEP what))
				addt[t] = m < 0 || b <= 0 ? -1 : m - b
				jm[t, w] = m; jx[t, w] = x
			}
			ratio = addt["perf"] > 0 && addt["pmclog"] >= 0 ? sprintf("added time %.2fx perf%s", addt["pmclog"] / addt["perf"], " (goal <= 0.5x)") : "-"
			if (addt["perf"] > 0 && addt["bpf"] >= 0)
				ratio = ratio sprintf(" (%.2fx)", addt["bpf"] / addt["perf"])
			printf "%-44s %-22s %-22s %-22s %s\n", line, cell["perf"], cell["pmclog"], cell["bpf"], ratio
			jb[w] = b
		}
		for (ti = 1; ti <= 3; ti++) {
			t = tool[ti]
			tot = s[t, r] + lost[t, r]
			dcell[t] = !cnt[t SUBSEP r SUBSEP "whole"] ? "-" : sprintf("%d of %d, %d rec", lost[t, r], tot, lostrec[t, r])
			bcell[t] = s[t, r] ? sprintf("%.1f", bytes[t, r] / s[t, r]) : "-"
			bps[t] = s[t, r] ? bytes[t, r] / s[t, r] : -1
		}
		printf "%-44s %-22s %-22s %-22s %s\n", sprintf("%g kHz: samples lost (all rounds)", r / 1000), dcell["perf"], dcell["pmclog"], dcell["bpf"], "goal 0"
		printf "%-44s %-22s %-22s %-22s %s\n", sprintf("%g kHz: bytes per sample", r / 1000), bcell["perf"], bcell["pmclog"], bcell["bpf"],
			(bps["perf"] > 0 && bps["pmclog"] > 0 ? sprintf("%.2fx (goal <= 0.6x)", bps["pmclog"] / bps["perf"]) : "-")
		j = j (i > 1 ? "," : "") sprintf("\n    {\"rate_hz\": %d, \"bare_whole_s_median\": %s, \"bare_own_s_median\": %s", r, jnum(jb[1]), jnum(jb[2]))
		for (ti = 1; ti <= 3; ti++) {
			t = tool[ti]
			j = j sprintf(", \"%s\": {\"runs\": %d, \"whole_s_median\": %s, \"whole_s_min\": %s, \"own_s_median\": %s, \"own_s_min\": %s, \"samples\": %d, \"samples_lost\": %d, \"records_lost\": %d, \"bytes_per_sample\": %s}",
				t, cnt[t SUBSEP r SUBSEP "whole"], jnum(jm[t, 1]), jnum(jx[t, 1]), jnum(jm[t, 2]), jnum(jx[t, 2]),
				s[t, r], lost[t, r], lostrec[t, r], jnum(bps[t]))
		}
		j = j "}"
	}
	j = j "\n  ]"
	pr = med("perf" SUBSEP rep_rate["perf"] SUBSEP "report"); qr = med("pmclog" SUBSEP rep_rate["pmclog"] SUBSEP "report")
	if (qr >= 0) {
		printf "%-44s %-22s %-22s %-22s %s\n", "report of each log, in the VM: s (med)", fmt(pr, "%.2f"), fmt(qr, "%.2f"), "-",
			(pr > 0 && qr > 0 ? sprintf("%.1fx faster (goal >= 5x)", pr / qr) : "-")
		j = j sprintf(",\n  \"report_in_vm_s_median\": {\"perf\": %s, \"pmclog\": %s}", jnum(pr), jnum(qr))
	}
	if (runs && !have_perf)
		print "\nperf: not in the VM (see the lines above from bench:), pmclog alone"
	print "\nmed: medians over the rounds, over the bare median; min: the fastest run over the fastest bare run; added time: (tool - bare) medians, pmclog over perf."
	print j "\n}" > json
}' "$out/native.txt" ${bench_txt:+"$bench_txt"}
log "wrote ${out#"$repo"/}/bench.json"
