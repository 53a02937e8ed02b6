#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pmclog(1) against the tool's option tables (tools/pmclog/parse_options.h),
# both ways, as the built tool prints them:
#
#   - the subcommands `pmclog help` lists are those with a
#     ".Ss pmclog NAME" subsection, and a synopsis in SYNOPSIS;
#   - for each, the options of its --help lines are those of the items
#     (".It Fl X", ".It Fl \-name") of its subsection, and the options of
#     its --help synopsis those of its SYNOPSIS lines;
#   - -h and --help, which every subcommand takes without an entry, are
#     said once in DESCRIPTION.
#
# The tables are the one list: --help and `pmclog help` are printed from
# them, so an option missing from either side of the page is caught, and
# so is a page's option the tool does not have.  Builds the tool when
# needed (PMCLOG=path to use another binary).  Prints TAP; exits 1 when
# something differs.
#
#   tests/man/check-options.sh [MANPAGE]
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
man=${1:-$repo/man/pmclog.1}
if [[ -z ${PMCLOG:-} ]]; then
	make -s -C "$repo/tools/pmclog" pmclog >&2
	PMCLOG=$repo/tools/pmclog/pmclog
fi

n=0 failed=0
tap() { # tap ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n - $2"
	[[ $1 == ok ]] || failed=$((failed + 1))
}

# same WHAT LEFT-NAME LEFT RIGHT-NAME RIGHT: two sorted lists, both ways.
same() {
	local what=$1 ln=$2 left=$3 rn=$4 right=$5 o
	for o in $left; do
		if grep -qxF -- "$o" <<<"$right"; then
			tap ok "$what: $o ($ln) is in $rn"
		else
			tap "not ok" "$what: $o ($ln) is in $rn"
		fi
	done
	for o in $right; do
		grep -qxF -- "$o" <<<"$left" && continue
		tap "not ok" "$what: $o ($rn) is in $ln"
	done
}

# The options in text: "-x" and "--name" words, one a line, sorted,
# without -h and --help.
options_in() {
	grep -oE '(^|[][ |,(])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ |,(]//' |
		grep -vxE -- '-h|--help' | sort -u || true
}

# The man page's Fl words of the lines on stdin as options ("Fl \-x" is --x).
man_options() {
	sed 's/\\-/-/g' | grep -oE 'Fl -?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^Fl /-/' | grep -vxE -- '-h|--help' | sort -u || true
}

# The subsection of the page for subcommand $1.
section() {
	awk -v want="pmclog $1" '
		/^\.S[sh] / { on = (substr($0, 5) == want); next }
		on { print }
	' "$man"
}

# The lines of SYNOPSIS for subcommand $1: from ".Cm NAME" to the next .Nm.
man_synopsis() {
	awk -v want=".Cm $1" '
		/^\.Sh / { syn = ($0 == ".Sh SYNOPSIS"); on = 0; next }
		syn && /^\.Nm/ { on = 0; next }
		syn && $0 == want { on = 1; next }
		syn && on { print }
	' "$man"
}

# The --help lines of options: "  -i, --input FILE   text" -> the left column.
help_option_column() {
	awk '/^  +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }'
}

# The synopsis of --help: from "usage:" to the first empty line.
help_synopsis() { awk '/^usage:/ { on = 1 } on && /^$/ { exit } on { sub(/^usage: pmclog [a-z]+/, ""); print }'; }

mapfile -t cmds < <("$PMCLOG" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
((${#cmds[@]})) || { echo "Bail out! $PMCLOG help lists no commands"; exit 1; }

if grep -q 'Every subcommand accepts' "$man" && grep -A4 'Every subcommand accepts' "$man" | grep -q 'Fl \\-help'; then
	tap ok "pmclog(1) says every subcommand takes -h and --help"
else
	tap "not ok" "pmclog(1) says every subcommand takes -h and --help (\"Every subcommand accepts ... Fl h ... Fl \\-help\")"
fi

pages=$(sed -nE 's/^\.Ss pmclog ([a-z-]+)$/\1/p' "$man" | sort)
same "subcommands" "pmclog help" "$(printf '%s\n' "${cmds[@]}" | sort)" "pmclog(1) subsections" "$pages"

for cmd in "${cmds[@]}"; do
	text=$(section "$cmd")
	[[ -n $text ]] || continue
	help=$("$PMCLOG" "$cmd" --help)
	syn=$(man_synopsis "$cmd")
	if [[ -n $syn ]] || grep -qx "\.Cm $cmd" "$man"; then
		tap ok "pmclog(1) SYNOPSIS has pmclog $cmd"
	else
		tap "not ok" "pmclog(1) SYNOPSIS has pmclog $cmd"
	fi
	same "pmclog $cmd" "pmclog $cmd --help" "$(help_option_column <<<"$help" | options_in)" \
		"its items in pmclog(1)" "$(grep '^\.It ' <<<"$text" | man_options)"
	same "pmclog $cmd" "the --help synopsis" "$(help_synopsis <<<"$help" | options_in)" \
		"pmclog(1) SYNOPSIS" "$(man_options <<<"$syn")"
done
echo "1..$n"
((failed == 0))
