#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one libFuzzer target, bounded, and say what it did:
#
#   tests/fuzz/run.sh TARGET SECONDS [MAX_LEN]
#   tests/fuzz/run.sh --runs N [--seed S] TARGET [MAX_LEN]
#
# By time, the target grows corpus/TARGET (kept between runs) from
# seeds/TARGET and regress/TARGET: what it finds depends on the machine's
# speed and on earlier runs.  By count (--runs: make check), it starts
# from seeds/TARGET and regress/TARGET alone, in a corpus thrown away
# afterwards, with a fixed random seed (S, default 1), without ASLR and
# with a fixed scratch folder: the same inputs in the same order in every
# run of a checkout, so that a failure is a fact about the code, never
# about the run.  regress/TARGET holds inputs that once broke a promise,
# kept as they were found.  libFuzzer's output goes to logs/TARGET.log.
# On success one line gives the executions, the time, the rate, the
# coverage and the corpus.  On a
# crash, a leak, a timeout (10 s for one input) or running out of memory
# (2 GiB), the sanitizer's report is shown with the reproducer's path and
# how to rerun it, and the exit status is 1.
set -uo pipefail

usage() {
	echo "usage: $0 TARGET SECONDS [MAX_LEN]" >&2
	echo "       $0 --runs N [--seed S] TARGET [MAX_LEN]" >&2
	exit 2
}
runs_limit='' seed=1 norandom=()
while (($#)); do
	case $1 in
	--runs) runs_limit=${2:-}; shift 2 || usage ;;
	--seed) seed=${2:-}; shift 2 || usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
if [[ -n $runs_limit ]]; then
	(($# >= 1)) || usage
	target=$1 seconds='' max_len=${2:-}
	[[ $runs_limit =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || usage
else
	(($# >= 2)) || usage
	target=$1 seconds=$2 max_len=${3:-}
fi
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
mkdir -p artifacts logs
log=logs/$target.log
regress=regress/${target#fuzz_}
inputs=("seeds/${target#fuzz_}")
[[ -d $regress ]] && inputs+=("$regress")
if [[ -n $runs_limit ]]; then
	corpus=$(mktemp -d "logs/$target.corpus.XXXXXX")
	trap 'rm -rf "$corpus"' EXIT
	# Besides the seed, libFuzzer is steered by the addresses its
	# comparison tracing sees (ASLR) and by re-reading the corpus folder
	# on a timer: without the two settings below, two runs part within
	# seconds.
	bound=(-runs="$runs_limit" -seed="$seed" -reload=0)
	# So do the paths it compares: the scratch folder gets a fixed name,
	# one per checkout (its path's CRC), so that two checkouts fuzzing at
	# once do not share it.
	setarch -R true 2>/dev/null && norandom=(setarch -R)
	tree=$(printf '%s' "$here" | cksum)
	export PMCLOG_FUZZ_SCRATCH=${TMPDIR:-/tmp}/pmclog-fuzz-${tree%% *}-$target
else
	corpus=corpus/$target
	mkdir -p "$corpus"
	bound=(-max_total_time="$seconds")
fi

# What the sanitizers find stops the run; leaks are part of it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

"${norandom[@]}" ./"$target" "${bound[@]}" -timeout=10 -rss_limit_mb=2048 \
	${max_len:+-max_len="$max_len"} -print_final_stats=1 \
	-artifact_prefix="artifacts/$target-" \
	"$corpus" "${inputs[@]}" >"$log" 2>&1
rc=$?

stat() { sed -nE "s/^stat::$1:[[:space:]]*([0-9]+).*/\1/p" "$log" | tail -n 1; }
runs=$(stat number_of_executed_units)
rate=$(stat average_exec_per_sec)
rss=$(stat peak_rss_mb)
# "#N DONE cov: C ft: F corp: U/SIZE ..." (or the last status line)
last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")
secs=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -n 1)

figures="${runs:-?} runs${runs_limit:+ (seed $seed)} in ${secs:-${seconds:-?}} s (${rate:-?}/s), cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?} (inputs/bytes), peak RSS ${rss:-?} MB"

if ((rc == 0)) && grep -q '^Done ' "$log"; then
	echo "fuzz: $target: $figures: no crash, leak or timeout"
	exit 0
fi

artifact=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
kind=$(grep -oE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer): [a-z-]+( on [a-z-]+)?|runtime error: .*|fuzz: broken promise: .*' "$log" | head -n 1)
{
	echo "fuzz: $target: FAILED (exit $rc) after $figures"
	echo "fuzz: $target: ${kind:-see $here/$log}"
	echo "---- last lines of $here/$log ----"
	tail -n 40 "$log"
	echo "----"
	if [[ -n $artifact ]]; then
		echo "fuzz: $target: reproducer: $here/$artifact"
		echo "fuzz: $target: rerun it: $here/$target $here/$artifact"
		echo "fuzz: $target: fix the bug, and make the input a unit test in tests/unit"
	else
		echo "fuzz: $target: no reproducer written; the whole output is in $here/$log"
	fi
} >&2
exit 1
