#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every subcommand of pmclog and every option it parses is in pmclog(1):
# each subcommand has a ".Ss pmclog NAME" subsection, and each option of
# its getopt string or long_options table a "Fl X" (or "Fl \-name") there.
# Reads the sources, not --help, so an option left out of the usage text
# is caught too.  Prints TAP; exits 1 when something is missing.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
tool=$repo/tools/pmclog
man=${1:-$repo/man/pmclog.1}

n=0 failed=0
tap() { # tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n - $2"
	[[ $1 == ok ]] || failed=$((failed + 1))
}

# The subsection of the page for subcommand $1, with \- turned into -.
section() {
	awk -v want="pmclog $1" '
		/^\.S[sh] / { on = (substr($0, 5) == want) ; next }
		on { gsub(/\\-/, "-"); print }
	' "$man"
}

mapfile -t cmds < <(sed -nE 's/^[[:space:]]*\{ "([a-z-]+)", cmd_[a-z_]+,.*/\1/p' "$tool/pmclog.c")
((${#cmds[@]})) || { echo "Bail out! no subcommands found in $tool/pmclog.c"; exit 1; }

for cmd in "${cmds[@]}"; do
	text=$(section "$cmd")
	if [[ -n $text ]]; then
		tap ok "pmclog($man): subsection for '$cmd'"
	else
		tap "not ok" "pmclog(1): subsection '.Ss pmclog $cmd' for subcommand '$cmd'"
		continue
	fi
	src=$tool/cmd_${cmd//-/_}.c
	[[ -f $src ]] || continue
	shorts=$(sed -nE 's/.*getopt(_long)?\([^,]+, [^,]+, "([^"]*)".*/\2/p' "$src" | tr -d '+:-')
	longs=$(sed -nE 's/^[[:space:]]*\{ "([a-z][a-z0-9-]*)", (no|required|optional)_argument.*/\1/p' "$src")
	for ((i = 0; i < ${#shorts}; i++)); do
		o=${shorts:i:1}
		if grep -qE "(^|[ .])Fl $o( |$)" <<<"$text"; then
			tap ok "pmclog $cmd -$o is in pmclog(1)"
		else
			tap "not ok" "pmclog $cmd -$o is in pmclog(1)"
		fi
	done
	for o in $longs; do
		if grep -qE "(^|[ .])Fl -$o( |$)" <<<"$text"; then
			tap ok "pmclog $cmd --$o is in pmclog(1)"
		else
			tap "not ok" "pmclog $cmd --$o is in pmclog(1)"
		fi
	done
done
echo "1..$n"
((failed == 0))
