# SPDX-License-Identifier: GPL-2.0
#
# make bench's table and JSON (tests/bench/run.sh), from native.txt (the
# native figures) and the VM's bench.txt (tests/bench/vm/10-bench.sh: one
# line a run).  -v json=FILE -v kernel=NAME.  README.md ("Benchmark")
# explains each figure.

# Sorts a[1..n] in place (insertion: a handful of rounds).
function isort(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
function med(key,   n, i, a) {
	n = cnt[key]
	if (!n) return -1
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	isort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function mn(key,   n, i, m) {
	n = cnt[key]; if (!n) return -1
	m = val[key, 1]; for (i = 2; i <= n; i++) if (val[key, i] < m) m = val[key, i]
	return m
}
function add(key, v) { val[key, ++cnt[key]] = v }
function kv(line, k) { return match(line, " " k "=[^ ]*") ? substr(line, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "" }
function fmt(v, f) { return v < 0 ? "-" : sprintf(f, v) }
function jnum(v) { return v < 0 ? "null" : sprintf("%.6g", v) }
function row(what, p, q, b, note) { printf "%-44s %-24s %-24s %-24s %s\n", what, p, q, b, note }
# Sorts the keys of set into list[1..n]; returns n.
function sorted(set, list,   n, k) {
	n = 0
	for (k in set) list[++n] = k + 0
	isort(list, n)
	return n
}
function khz(r) { return sprintf("%g kHz", r / 1000) }
# The mmap loop's row from the per-op figures under key (medians over the
# runs), and its JSON member name.
function mmaprow(key, what, name,   b, ti, t, md, madd, mcell, ratio) {
	if (!cnt["bare" SUBSEP key]) return
	b = med("bare" SUBSEP key)
	for (ti = 1; ti <= 3; ti++) {
		t = tool[ti]
		md = med(t SUBSEP key)
		madd[t] = md < 0 ? -1 : md - b
		mcell[t] = md < 0 ? "-" : sprintf("%+.1f (%.1f)", madd[t], md)
	}
	ratio = "-"
	if (madd["perf"] > 0 && cnt["pmclog" SUBSEP key])
		ratio = sprintf("%.2fx perf (goal <= 0.5x)", madd["pmclog"] / madd["perf"])
	if (madd["perf"] > 0 && cnt["bpf" SUBSEP key])
		ratio = ratio sprintf(" (%.2fx)", madd["bpf"] / madd["perf"])
	row(sprintf(what, b), mcell["perf"], mcell["pmclog"], mcell["bpf"], ratio)
	j = j sprintf(",\n  \"%s\": {\"bare\": %s, \"perf\": %s, \"pmclog\": %s, \"bpf\": %s}",
		name, jnum(b), jnum(med("perf" SUBSEP key)), jnum(med("pmclog" SUBSEP key)), jnum(med("bpf" SUBSEP key)))
}

/^native / { add("native_secs", kv($0, "secs")); add("native_rss", kv($0, "rss_kb") / 1024)
	nsamples = kv($0, "samples"); nbytes = kv($0, "bytes") }
/^callgrind / { cg_take = kv($0, "take_ir"); cg_drain = kv($0, "drain_ir") }
/^recorder / { rp_ir[$2] = kv($0, "ir"); rp_bytes[$2] = kv($0, "bytes") }
/^have_perf=/ { have_perf = kv(" " $0, "have_perf") + 0; clock = kv($0, "clocksource"); icount = kv($0, "icount") }
/^run / {
	t = kv($0, "tool"); m = kv($0, "mode"); r = kv($0, "rate"); rateseen[r] = 1; modeseen[m] = 1
	add(t SUBSEP m SUBSEP r SUBSEP "whole", kv($0, "whole_ns") / 1e9)
	add(t SUBSEP m SUBSEP r SUBSEP "own", kv($0, "own_ns") / 1e9)
	s[t, m, r] += kv($0, "samples"); lost[t, m, r] += kv($0, "lost_samples")
	lostrec[t, m, r] += kv($0, "lost_records"); bytes[t, m, r] += kv($0, "bytes")
	# The reports timed are those of the highest rate's logs.
	if (m == "process" && kv($0, "report_ns") > 0) {
		add(t SUBSEP "report" SUBSEP r, kv($0, "report_ns") / 1e9)
		if (r + 0 > rep_rate[t] + 0) rep_rate[t] = r
	}
	runs++
}
/^mmap / {
	t = kv($0, "tool"); add(t SUBSEP "mmap", kv($0, "wall_ns") / kv($0, "ops") / 1000)
	if (kv($0, "best_ns") > 0) {
		add(t SUBSEP "mmapbest", kv($0, "best_ns") / kv($0, "block") / 1000)
		mmap_block = kv($0, "block")
	}
}
/^sweep / {
	t = kv($0, "tool"); r = kv($0, "rate") + 0
	if (kv($0, "status") != 0) why[t] = sprintf("%s: exit %s", khz(r), kv($0, "status"))
	else if (kv($0, "lost_samples") + kv($0, "lost_records") > 0) {
		tot = kv($0, "samples") + kv($0, "lost_samples")
		why[t] = sprintf("%s: %.2g%% of samples lost, %d records", khz(r),
			100 * kv($0, "lost_samples") / (tot ? tot : 1), kv($0, "lost_records"))
	} else {
		best[t] = r
		# Samples a CPU a second, over the rate asked for: what the
		# timer kept of it under TCG.
		kept[t] = kv($0, "samples") / (2 * kv($0, "seconds")) / r
	}
	if (!(t in swept)) nswept++
	swept[t] = 1
}
END {
	tool[1] = "perf"; tool[2] = "pmclog"; tool[3] = "bpf"
	printf "\npmclog bench (%s%s%s)\n\n", strftime("%Y-%m-%d %H:%M UTC", systime(), 1),
		clock != "" ? ", the VM's clocksource " clock : "",
		icount != "" && icount != "off" ? ", QEMU -icount " icount : ""
	row("figure", "perf", "pmclog", "pmclog --bpf", "pmclog vs perf (--bpf)")
	row("------", "----", "------", "------------", "----------------------")
	j = "{\n  \"kernel\": \"" kernel "\",\n  \"clocksource\": \"" clock "\",\n  \"icount\": \"" icount "\",\n  \"native\": {"
	if (cnt["native_secs"]) {
		row(sprintf("report, %d M samples natively: s (med/min)", nsamples / 1e6), "-",
			sprintf("%.2f / %.2f", med("native_secs"), mn("native_secs")), "-", "goal < 5 s")
		row("  peak memory, MB (med/min)", "-",
			sprintf("%.1f / %.1f", med("native_rss"), mn("native_rss")), "-", "goal < 200 MB")
		j = j sprintf("\"samples\": %d, \"log_bytes\": %d, \"report_s_median\": %s, \"report_s_min\": %s, \"peak_rss_mb_median\": %s, \"peak_rss_mb_min\": %s, \"runs\": %d",
			nsamples, nbytes, jnum(med("native_secs")), jnum(mn("native_secs")), jnum(med("native_rss")), jnum(mn("native_rss")), cnt["native_secs"])
	}
	if (cg_take != "") {
		row("sample path, instructions per sample", "-",
			sprintf("%.0f + %.0f drain", cg_take, cg_drain), "-", "callgrind, 20 kHz, one CPU")
		j = j sprintf(", \"sample_take_instructions\": %s, \"sample_drain_instructions\": %s", cg_take, cg_drain)
	}
	if ("packed" in rp_ir) {
		row("recorder, instructions per sample", "-",
			sprintf("%.0f (%.0f unpacked)", rp_ir["packed"], rp_ir["unpacked"]),
			"-", sprintf("callgrind; -z: %.0f", rp_ir["packed-z"]))
		row("  its bytes per sample", "-",
			sprintf("%.1f (%.1f unpacked)", rp_bytes["packed"], rp_bytes["unpacked"]),
			"-", sprintf("-z: %.1f", rp_bytes["packed-z"]))
		j = j sprintf(", \"recorder_instructions\": {\"packed\": %s, \"unpacked\": %s, \"packed_z\": %s}",
			rp_ir["packed"], rp_ir["unpacked"], rp_ir["packed-z"])
	}
	j = j "},\n  \"vm\": ["
	nr = sorted(rateseen, rl)
	nj = 0
	for (mi = 1; mi <= 3; mi++) {
		m = mi == 1 ? "process" : mi == 2 ? "system" : "stacks"
		if (!(m in modeseen)) continue
		# stacks: process mode with -g (call stacks) for each tool.
		mname = m == "stacks" ? "process -g" : m
		wname = m == "stacks" ? "callpaths" : "xz"
		for (i = 1; i <= nr; i++) {
			r = rl[i]
			if (!cnt["bare" SUBSEP m SUBSEP r SUBSEP "whole"]) continue
			for (w = 1; w <= 2; w++) {
				what = w == 1 ? "whole" : "own"
				b = med("bare" SUBSEP m SUBSEP r SUBSEP what)
				bmin = mn("bare" SUBSEP m SUBSEP r SUBSEP what)
				for (ti = 1; ti <= 3; ti++) {
					t = tool[ti]
					md = med(t SUBSEP m SUBSEP r SUBSEP what); x = mn(t SUBSEP m SUBSEP r SUBSEP what)
					cell[t] = md < 0 || b <= 0 ? "-" : sprintf("x%.2f / x%.2f", md / b, x / bmin)
					addt[t] = md < 0 || b <= 0 ? -1 : md - b
					jm[t, w] = md; jx[t, w] = x
				}
				ratio = "-"
				if (addt["perf"] > 0 && cnt["pmclog" SUBSEP m SUBSEP r SUBSEP what])
					ratio = sprintf("added time %.2fx perf (goal <= 0.5x)", addt["pmclog"] / addt["perf"])
				if (addt["perf"] > 0 && cnt["bpf" SUBSEP m SUBSEP r SUBSEP what])
					ratio = ratio sprintf(" (%.2fx)", addt["bpf"] / addt["perf"])
				row(sprintf("%s %s, %s: x bare", mname, khz(r), w == 1 ? "whole command" : wname " alone"),
					cell["perf"], cell["pmclog"], cell["bpf"], ratio)
				jb[w] = b
			}
			# xz's added time (over the bare median, jb[2]) over the
			# samples of a run (the mean over the rounds): the tools
			# compared at the same number of samples, when one's timer
			# kept fewer than the other's.
			for (ti = 1; ti <= 3; ti++) {
				t = tool[ti]
				k = t SUBSEP m SUBSEP r SUBSEP "own"
				nps = cnt[k] ? s[t, m, r] / cnt[k] : 0
				md = med(k)
				pps[t] = nps > 0 && md > jb[2] ? (md - jb[2]) * 1e6 / nps : -1
				pcell[t] = pps[t] < 0 ? "-" : sprintf("%.1f (%d samples)", pps[t], nps)
			}
			ratio = "-"
			if (pps["perf"] > 0 && pps["pmclog"] >= 0)
				ratio = sprintf("%.2fx perf per sample", pps["pmclog"] / pps["perf"])
			if (pps["perf"] > 0 && pps["bpf"] >= 0)
				ratio = ratio sprintf(" (%.2fx)", pps["bpf"] / pps["perf"])
			row(sprintf("%s %s, %s alone: us added per sample", mname, khz(r), wname),
				pcell["perf"], pcell["pmclog"], pcell["bpf"], ratio)
			# The floor (process mode): xz's added time per tick of
			# pmclog_tickfloor, timer interrupts that do nothing, at
			# the same rate on xz's CPU (both pinned there, over xz
			# pinned alone), beside the tools' added time per sample.
			# Not subtracted from them: its noise is theirs.
			tk = "tick" SUBSEP m SUBSEP r SUBSEP "own"
			ntk = cnt[tk] ? s["tick", m, r] / cnt[tk] : 0
			tmed = med(tk); pmed = med("pinbare" SUBSEP m SUBSEP r SUBSEP "own")
			tfloor = ntk > 0 && tmed >= 0 && pmed >= 0 ? (tmed - pmed) * 1e6 / ntk : "none"
			if (tfloor != "none")
				row(sprintf("%s %s, %s alone: us per empty tick", mname, khz(r), wname), "-", "-", "-",
					sprintf("%.1f: the timer's interrupt alone (%d ticks a run)", tfloor, ntk))
			for (ti = 1; ti <= 3; ti++) {
				t = tool[ti]
				tot = s[t, m, r] + lost[t, m, r]
				dcell[t] = !cnt[t SUBSEP m SUBSEP r SUBSEP "whole"] ? "-" : sprintf("%d of %d, %d rec", lost[t, m, r], tot, lostrec[t, m, r])
				bcell[t] = s[t, m, r] ? sprintf("%.1f", bytes[t, m, r] / s[t, m, r]) : "-"
				bps[t] = s[t, m, r] ? bytes[t, m, r] / s[t, m, r] : -1
			}
			row(sprintf("%s %s: samples lost (all rounds)", mname, khz(r)), dcell["perf"], dcell["pmclog"], dcell["bpf"], "goal 0")
			row(sprintf("%s %s: bytes per sample", mname, khz(r)), bcell["perf"], bcell["pmclog"], bcell["bpf"],
				(bps["perf"] > 0 && bps["pmclog"] > 0 ? sprintf("%.2fx (goal <= 0.6x)", bps["pmclog"] / bps["perf"]) : "-"))
			j = j (nj++ ? "," : "") sprintf("\n    {\"mode\": \"%s\", \"rate_hz\": %d, \"bare_whole_s_median\": %s, \"bare_own_s_median\": %s", m, r, jnum(jb[1]), jnum(jb[2]))
			if (tfloor != "none")
				j = j sprintf(", \"tick\": {\"runs\": %d, \"pinned_bare_own_s_median\": %s, \"own_s_median\": %s, \"ticks\": %d, \"own_us_added_per_tick\": %s}",
					cnt[tk], jnum(pmed), jnum(tmed), ntk, sprintf("%.6g", tfloor))
			for (ti = 1; ti <= 3; ti++) {
				t = tool[ti]
				j = j sprintf(", \"%s\": {\"runs\": %d, \"whole_s_median\": %s, \"whole_s_min\": %s, \"own_s_median\": %s, \"own_s_min\": %s, \"samples\": %d, \"samples_lost\": %d, \"records_lost\": %d, \"bytes_per_sample\": %s, \"own_us_added_per_sample\": %s}",
					t, cnt[t SUBSEP m SUBSEP r SUBSEP "whole"], jnum(jm[t, 1]), jnum(jx[t, 1]), jnum(jm[t, 2]), jnum(jx[t, 2]),
					s[t, m, r], lost[t, m, r], lostrec[t, m, r], jnum(bps[t]), jnum(pps[t]))
			}
			j = j "}"
		}
	}
	j = j "\n  ]"
	mmaprow("mmap", "mmap+munmap, exec page: us added (bare %.1f)", "mmap_us_per_op_median")
	mmaprow("mmapbest", "  fastest " mmap_block " of each run: us added (bare %.1f)", "mmap_fastest_block_us_per_op_median")
	if (nswept) {
		for (ti = 1; ti <= 3; ti++) {
			t = tool[ti]
			scell[t] = !(t in swept) ? "-" : (best[t] ? khz(best[t]) : "none") (why[t] != "" ? " (" why[t] ")" : "")
			kcell[t] = best[t] ? sprintf("%.0f%%", 100 * kept[t]) : "-"
		}
		row("highest drop-free rate, -a, 2 busy CPUs", scell["perf"], scell["pmclog"], scell["bpf"], "goal >= 10 kHz with defaults")
		row("  samples kept at that rate (per CPU-second)", kcell["perf"], kcell["pmclog"], kcell["bpf"], "the timer under TCG")
		j = j ",\n  \"drop_free_rate_hz\": {"
		for (ti = 1; ti <= 3; ti++)
			j = j sprintf("%s\"%s\": %s", ti > 1 ? ", " : "", tool[ti], (tool[ti] in swept) ? best[tool[ti]] + 0 : "null")
		j = j "}"
	}
	pr = med("perf" SUBSEP "report" SUBSEP rep_rate["perf"]); qr = med("pmclog" SUBSEP "report" SUBSEP rep_rate["pmclog"])
	if (qr >= 0) {
		row("report of each log, in the VM: s (med)", fmt(pr, "%.2f"), fmt(qr, "%.2f"), "-",
			(pr > 0 && qr > 0 ? sprintf("%.1fx faster (goal >= 5x)", pr / qr) : "-"))
		j = j sprintf(",\n  \"report_in_vm_s_median\": {\"perf\": %s, \"pmclog\": %s}", jnum(pr), jnum(qr))
	}
	if (runs && !have_perf)
		print "\nperf: not in the VM (see the lines above from bench:), pmclog alone"
	print "\nx bare: med/min, medians over the rounds over the bare median / the fastest run over the fastest bare run; added time: (tool - bare) medians, pmclog over perf."
	print j "\n}" > json
}
