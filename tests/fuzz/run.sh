#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one libFuzzer target for a bounded time and say what it did:
#
#   tests/fuzz/run.sh TARGET SECONDS [MAX_LEN]
#
# The target grows corpus/TARGET (kept between runs) from seeds/TARGET;
# libFuzzer's output goes to logs/TARGET.log.  On success one line gives
# the executions, the time, the rate, the coverage and the corpus.  On a
# crash, a leak, a timeout (10 s for one input) or running out of memory
# (2 GiB), the sanitizer's report is shown with the reproducer's path and
# how to rerun it, and the exit status is 1.
set -uo pipefail

if (($# < 2)); then
	echo "usage: $0 TARGET SECONDS [MAX_LEN]" >&2
	exit 2
fi
target=$1 seconds=$2 max_len=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
mkdir -p "corpus/$target" artifacts logs
log=logs/$target.log

# What the sanitizers find stops the run; leaks are part of it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

./"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	${max_len:+-max_len="$max_len"} -print_final_stats=1 \
	-artifact_prefix="artifacts/$target-" \
	"corpus/$target" "seeds/${target#fuzz_}" >"$log" 2>&1
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

figures="${runs:-?} runs in ${secs:-$seconds} s (${rate:-?}/s), cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?} (inputs/bytes), peak RSS ${rss:-?} MB"

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
