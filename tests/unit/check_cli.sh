#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The pmclog binary as a user runs it, on logs mklog builds (log_builder.h),
# without the module: every subcommand's -h and --help, `pmclog help CMD`,
# `pmclog --version`, the log as an operand and through -i, -R and
# standard input, the exit status of each way a log ends, the same from
# dump and from report (pmclog(1), EXIT STATUS), nothing on standard
# output for a file that is not a log, -k and -r paths that do not exist.
# Prints TAP; exits 1 when a test fails.
#
#   check_cli.sh PMCLOG MKLOG
set -uo pipefail

pmclog=${1:?usage: check_cli.sh PMCLOG MKLOG}
mklog=${2:?usage: check_cli.sh PMCLOG MKLOG}
tmp=$(mktemp -d /tmp/pmclog-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# No module here, and none looked for where one might be.
export PMCLOG_DEVICE=$tmp/no-such-device

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

# run ARGS...: pmclog ARGS, its stdout in $tmp/out, stderr in $tmp/err, status in $rc.
run() {
	"$pmclog" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect STATUS DESC ARGS...: pmclog ARGS exits STATUS.
expect() {
	local want=$1 desc=$2
	shift 2
	run "$@"
	if [[ $rc == "$want" ]]; then
		ok "$desc: exit $want"
	else
		not_ok "$desc: exit $want (got $rc; stderr: $(head -c 300 "$tmp/err"))"
	fi
}

# has FILE STRING DESC: FILE holds STRING.
has() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else
		not_ok "$3 (no '$2' in: $(head -c 300 "$1"))"
	fi
}

empty() {
	if [[ ! -s $1 ]]; then ok "$2"; else not_ok "$2 (got: $(head -c 300 "$1"))"; fi
}

same() {
	if cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3 ($(diff "$1" "$2" | head -n 4))"; fi
}

for kind in full noclose cut corrupt notalog text empty; do
	"$mklog" "$kind" "$tmp/$kind.pmclog" || { echo "Bail out! mklog $kind"; exit 1; }
done

# --- -h, --help, help CMD: the usage on stdout, exit 0, nothing on stderr
for cmd in record report dump list version help; do
	for h in -h --help; do
		expect 0 "pmclog $cmd $h" "$cmd" "$h"
		has "$tmp/out" "usage: pmclog $cmd" "pmclog $cmd $h: the usage on stdout"
		empty "$tmp/err" "pmclog $cmd $h: nothing on stderr"
	done
	has "$tmp/out" "-h, --help" "pmclog $cmd --help lists -h, --help"
	cp "$tmp/out" "$tmp/help.$cmd"
	expect 0 "pmclog help $cmd" help "$cmd"
	same "$tmp/out" "$tmp/help.$cmd" "pmclog help $cmd is pmclog $cmd --help"
done
expect 0 "pmclog --help" --help
has "$tmp/out" "pmclog report [-i FILE]" "pmclog --help gives each command's synopsis"
expect 64 "pmclog help no-such-command" help no-such-command
expect 64 "pmclog with no command" 
has "$tmp/err" "usage: pmclog COMMAND" "pmclog with no command: the usage on stderr"
expect 64 "an unknown option" report --no-such-option "$tmp/full.pmclog"
has "$tmp/err" "pmclog report: unknown option '--no-such-option'" "an unknown option is named"
empty "$tmp/out" "an unknown option: nothing on stdout"
expect 64 "an ambiguous option" record --no -- true
has "$tmp/err" "ambiguous option '--no': --no-inherit, --no-pack, --no-bpf, --no-kallsyms?" "an ambiguous option names the candidates"
expect 64 "an argument to an option that takes none" report --stdio=yes "$tmp/full.pmclog"
has "$tmp/err" "option '--stdio' takes no argument" "an argument to a flag is refused by name"
expect 64 "an option without its argument" report "$tmp/full.pmclog" --sort
has "$tmp/err" "option '--sort' needs an argument" "a missing argument is named"
expect 64 "a short option without its argument, in a cluster" report "$tmp/full.pmclog" -qk
has "$tmp/err" "option '-k' needs an argument" "a missing argument of a cluster names the option"

# --- --version is the version command
expect 0 "pmclog version" version
cp "$tmp/out" "$tmp/version"
has "$tmp/version" "tool abi=" "pmclog version names the tool's ABI"
expect 0 "pmclog --version" --version
same "$tmp/out" "$tmp/version" "pmclog --version prints what pmclog version does"
expect 64 "pmclog version with an argument" version extra

# --- the log: operand, -i, -R, --input, standard input; --stdio
expect 0 "report -i FILE" report -q -i "$tmp/full.pmclog"
cp "$tmp/out" "$tmp/report"
has "$tmp/report" "Samples" "report -i FILE prints the profile"
for args in "$tmp/full.pmclog" "-R $tmp/full.pmclog" "--input $tmp/full.pmclog" \
	    "--stdio $tmp/full.pmclog" "-i $tmp/full.pmclog $tmp/full.pmclog"; do
	# shellcheck disable=SC2086 # words on purpose
	expect 0 "report -q $args" report -q $args
	same "$tmp/out" "$tmp/report" "report -q $args: the same profile as -i FILE"
done
expect 0 "report -q -i - < FILE" report -q -i - <"$tmp/full.pmclog"
same "$tmp/out" "$tmp/report" "report from standard input: the same profile"
expect 64 "report of two logs" report "$tmp/full.pmclog" "$tmp/noclose.pmclog"
has "$tmp/err" "report reads one log" "report of two logs says it reads one"
expect 64 "report -i A B" report -i "$tmp/full.pmclog" "$tmp/noclose.pmclog"
has "$tmp/err" "two logs named" "report -i A B names both"
expect 64 "report --stdio --format json" report --stdio --format json "$tmp/full.pmclog"
expect 0 "report --format json" report -q --format json "$tmp/full.pmclog"
has "$tmp/out" '"rows"' "report --format json is JSON"
# --format pprof: a gzip member on standard output or in -o FILE, the same bytes.
expect 0 "report --format pprof" report -q --format pprof "$tmp/full.pmclog"
cp "$tmp/out" "$tmp/prof.pb.gz"
if [[ $(head -c 2 "$tmp/prof.pb.gz" | od -An -tx1 | tr -d ' ') == 1f8b ]]; then
	ok "report --format pprof writes gzip"
else not_ok "report --format pprof writes gzip"; fi
expect 0 "report --format pprof -o FILE" report -q --format pprof -o "$tmp/prof2.pb.gz" "$tmp/full.pmclog"
empty "$tmp/out" "report --format pprof -o FILE: nothing on standard output"
same "$tmp/prof.pb.gz" "$tmp/prof2.pb.gz" "report --format pprof: -o FILE holds what standard output had"
expect 0 "report --format folded -o FILE" report -q --format folded -o "$tmp/folded" "$tmp/full.pmclog"
expect 73 "report -o into a directory that is not there" report -q --format pprof -o "$tmp/no/such/file" "$tmp/full.pmclog"
expect 66 "report of a file that is not there" report "$tmp/no-such.pmclog"

expect 0 "dump -i FILE" dump -i "$tmp/full.pmclog"
cp "$tmp/out" "$tmp/dump"
is_lines=$(wc -l <"$tmp/dump")
if [[ $is_lines == 16 ]]; then ok "dump prints the 16 records"; else not_ok "dump prints the 16 records (got $is_lines lines)"; fi
expect 0 "dump FILE" dump "$tmp/full.pmclog"
same "$tmp/out" "$tmp/dump" "dump FILE is dump -i FILE"
expect 64 "dump of two logs" dump "$tmp/full.pmclog" "$tmp/cut.pmclog"

# --- one exit status for each way a log ends, from dump and from report
# (76 EX_PROTOCOL: cut short; 65 EX_DATAERR: corrupt, or not a log)
status_of() {
	case $1 in
	full) echo 0 ;;
	noclose | cut) echo 76 ;;
	corrupt | notalog | text | empty) echo 65 ;;
	esac
}
for kind in full noclose cut corrupt notalog text empty; do
	want=$(status_of "$kind")
	expect "$want" "dump of the $kind log" dump "$tmp/$kind.pmclog"
	cp "$tmp/out" "$tmp/dump.$kind.out"
	cp "$tmp/err" "$tmp/dump.$kind.err"
	expect "$want" "report of the $kind log" report "$tmp/$kind.pmclog"
	cp "$tmp/out" "$tmp/report.$kind.out"
	expect "$want" "report of the $kind log from standard input" report -i - <"$tmp/$kind.pmclog"
	expect "$want" "script of the $kind log" script "$tmp/$kind.pmclog"
	cp "$tmp/out" "$tmp/script.$kind.out"
done
has "$tmp/script.full.out" "cpu-clock:" "script of the full log prints its samples"
for kind in notalog text empty; do
	empty "$tmp/script.$kind.out" "script of the $kind file: nothing on stdout"
done
expect 66 "script -k of a path that does not exist" script -k "$tmp/no-such-dir" "$tmp/full.pmclog"
expect 66 "flamegraph -k of a path that does not exist" flamegraph -k "$tmp/no-such-dir" -o "$tmp/fg.html" "$tmp/full.pmclog"
has "$tmp/err" "-k $tmp/no-such-dir: No such file or directory" "flamegraph -k names the missing path"
if [[ -e $tmp/fg.html ]]; then not_ok "flamegraph -k of a missing path: no page written"; else ok "flamegraph -k of a missing path: no page written"; fi
expect 66 "flamegraph -r of a path that does not exist" flamegraph -r "$tmp/no-such-root" -o "$tmp/fg.html" "$tmp/full.pmclog"
expect 64 "script -F of a field it does not know" script -F comm,nosuch "$tmp/full.pmclog"
has "$tmp/err" "unknown field 'nosuch'" "script -F names the field it does not know"
has "$tmp/dump.noclose.err" "without CLOSELOG" "dump of the noclose log says CLOSELOG is missing"
has "$tmp/dump.cut.err" "truncated at offset 656: truncated record at offset 656: header says" "dump of the cut log says where it is cut"
has "$tmp/dump.corrupt.err" "corrupt record at offset 128: bad record magic" \
	"dump of the corrupt log names the record"
for kind in noclose cut corrupt; do
	has "$tmp/report.$kind.out" "Samples" "report of the $kind log still prints the profile before the damage"
done
for kind in notalog text empty; do
	empty "$tmp/dump.$kind.out" "dump of the $kind file: nothing on stdout"
	empty "$tmp/report.$kind.out" "report of the $kind file: nothing on stdout, not even the header"
	has "$tmp/dump.$kind.err" "not a pmclog log" "dump of the $kind file says it is not a log"
	run report "$tmp/$kind.pmclog"
	has "$tmp/err" "not a pmclog log" "report of the $kind file says it is not a log"
done

# --- -k and -r name paths that must exist (EX_NOINPUT), as perf's -k
mkdir -p "$tmp/root/boot"
expect 66 "report -k of a path that does not exist" report -k "$tmp/no-such-dir" "$tmp/full.pmclog"
has "$tmp/err" "-k $tmp/no-such-dir: No such file or directory" "report -k names the missing path"
empty "$tmp/out" "report -k of a missing path: no profile"
expect 66 "report -r of a path that does not exist" report -r "$tmp/no-such-root" "$tmp/full.pmclog"
has "$tmp/err" "-r $tmp/no-such-root: No such file or directory" "report -r names the missing path"
expect 66 "report -r of a file" report -r "$tmp/full.pmclog" "$tmp/full.pmclog"
has "$tmp/err" "not a directory" "report -r of a file says it is not a directory"
expect 66 "report -k missing under -r" report -r "$tmp/root/" -k /no-such-kernel "$tmp/full.pmclog"
has "$tmp/err" "-k /no-such-kernel: No such file or directory (under -r $tmp/root/: $tmp/root/no-such-kernel)" \
	"report -k under -r names the path it looked at"
expect 0 "report -k of a directory that is there, under -r" report -q -r "$tmp/root" -k /boot "$tmp/full.pmclog"

# --- what a log names (issue #42): another user may have put a FIFO, a
# device, a link, a 64 GiB sparse file or terminal escapes there.  Each
# is refused quickly (timeout) and said, escaped; the report is made of
# the rest.  What runs on the sparse file is bounded in memory, as reading
# it would need (not under ASan, whose shadow is not); the outputs' tests
# run on a log without it.
guarded() {
	# grep reads all of ldd's output: with pipefail, grep -q's early exit
	# could fail ldd with SIGPIPE, and the test with it.
	if ldd "$pmclog" 2>/dev/null | grep libasan >/dev/null; then
		timeout 60 "$pmclog" "$@" >"$tmp/out" 2>"$tmp/err"
	else
		(ulimit -v 8388608; timeout 60 "$pmclog" "$@" >"$tmp/out" 2>"$tmp/err")
	fi
	rc=$?
}
mkdir -p "$tmp/p" "$tmp/kdir"
mkfifo "$tmp/p/fifo"
ln -s "$pmclog" "$tmp/p/link"
truncate -s 64G "$tmp/p/sparse"
esc=$'\e]0;owned\a\e[2J\nforged'
ln -s "$pmclog" "$tmp/p/evil$esc"
"$mklog" paths "$tmp/paths.pmclog" "$tmp/p/fifo" /dev/null "$tmp/p/link" "$tmp/p/sparse" \
	"$tmp/p/evil$esc" || { echo "Bail out! mklog paths"; exit 1; }
"$mklog" paths "$tmp/outs.pmclog" "$tmp/p/no-such-program" || { echo "Bail out! mklog paths"; exit 1; }
umask_was=$(umask)
umask 022
guarded report -o "$tmp/r.txt" -G "$tmp/g.txt" -g "$tmp/gmon" -M "$tmp/gmon.map" "$tmp/paths.pmclog"
if [[ $rc == 0 ]]; then ok "report of a log naming a FIFO, a device, links, a sparse file: exit 0"
else not_ok "report of a log naming a FIFO, a device, links, a sparse file: exit 0 (got $rc: $(head -c 300 "$tmp/err"))"; fi
has "$tmp/r.txt" "Samples" "report of those: the profile of the rest"
has "$tmp/err" "$tmp/p/fifo: not a regular file (a device, a FIFO or a socket): not opened" "a FIFO named by a log: not opened, said"
has "$tmp/err" "/dev/null: not a regular file" "a device named by a log: not opened, said"
has "$tmp/err" "$tmp/p/link: a symbolic link, which pmclog does not follow" "a link named by a log: not followed, said"
has "$tmp/err" "$tmp/p/sparse: larger than 2 GiB" "a 64 GiB sparse file named by a log: not read, said"
has "$tmp/err" "$tmp/p/evil\\x1b]0;owned\\x07\\x1b[2J\\x0aforged: a symbolic link" "a name with escapes and a newline: said escaped"
if LC_ALL=C grep -q $'\e' "$tmp/err"; then not_ok "no escape byte reaches stderr"; else ok "no escape byte reaches stderr"; fi
for f in r.txt g.txt gmon.map; do
	m=$(stat -c %a "$tmp/$f")
	if [[ $m == 600 ]]; then ok "report's $f: mode 600 under umask 022"; else not_ok "report's $f: mode 600 under umask 022 (got $m)"; fi
done
m=$(stat -c %a "$tmp/gmon")
if [[ $m == 700 ]]; then ok "report -g DIR: mode 700 under umask 022"; else not_ok "report -g DIR: mode 700 under umask 022 (got $m)"; fi
for fmt in pprof chrome-trace json; do
	expect 0 "report --format $fmt -o FILE" report -q --format "$fmt" -o "$tmp/out.$fmt" "$tmp/outs.pmclog"
	m=$(stat -c %a "$tmp/out.$fmt")
	if [[ $m == 600 ]]; then ok "report --format $fmt -o FILE: mode 600"; else not_ok "report --format $fmt -o FILE: mode 600 (got $m)"; fi
done
expect 0 "flamegraph -o FILE" flamegraph -q -o "$tmp/fg-mode.html" "$tmp/outs.pmclog"
m=$(stat -c %a "$tmp/fg-mode.html")
if [[ $m == 600 ]]; then ok "flamegraph -o FILE: mode 600"; else not_ok "flamegraph -o FILE: mode 600 (got $m)"; fi
# One's own output, written again: replaced, 0600 now.
echo old >"$tmp/own.txt"
chmod 644 "$tmp/own.txt"
expect 0 "report -o over one's own file" report -q -o "$tmp/own.txt" "$tmp/outs.pmclog"
has "$tmp/own.txt" "Samples" "report -o over one's own file: the profile is there"
m=$(stat -c %a "$tmp/own.txt")
if [[ $m == 600 ]]; then ok "report -o over one's own file: mode 600"; else not_ok "report -o over one's own file: mode 600 (got $m)"; fi
expect 0 "report -o /dev/null" report -q -o /dev/null "$tmp/outs.pmclog"
if [[ -c /dev/null ]]; then ok "report -o /dev/null: still the device"; else not_ok "report -o /dev/null: still the device"; fi
expect 0 "flamegraph -o /dev/null" flamegraph -q -o /dev/null "$tmp/outs.pmclog"
umask "$umask_was"
# -k names the user's files: a link is followed, but a huge file is not read.
ln -s "$tmp/p/sparse" "$tmp/kdir/vmlinux"
guarded report -q -k "$tmp/kdir" "$tmp/full.pmclog"
if [[ $rc == 0 ]]; then ok "report -k DIR with a 64 GiB vmlinux: exit 0"
else not_ok "report -k DIR with a 64 GiB vmlinux: exit 0 (got $rc: $(head -c 300 "$tmp/err"))"; fi
has "$tmp/err" "$tmp/kdir/vmlinux: larger than 2 GiB" "report -k DIR with a 64 GiB vmlinux: not read, said"
# Another user's link where -o points: not written through (as root only).
if [[ $EUID == 0 ]]; then
	mkdir -m 0755 "$tmp/o"
	ln -s "$tmp/o/target" "$tmp/o/link"
	chown -h 65534:65534 "$tmp/o/link"
	expect 73 "report -o onto another user's link" report -q -o "$tmp/o/link" "$tmp/outs.pmclog"
	has "$tmp/err" "$tmp/o/link is a symbolic link of uid 65534" "report -o onto another user's link says whose"
	if [[ -e $tmp/o/target ]]; then not_ok "report -o onto another user's link: nothing written through it"
	else ok "report -o onto another user's link: nothing written through it"; fi
	expect 73 "flamegraph -o onto another user's link" flamegraph -q -o "$tmp/o/link" "$tmp/outs.pmclog"
	expect 73 "report -G onto another user's link" report -q -G "$tmp/o/link" "$tmp/outs.pmclog"
	if [[ -e $tmp/o/target ]]; then not_ok "flamegraph -o, report -G onto another user's link: nothing written through it"
	else ok "flamegraph -o, report -G onto another user's link: nothing written through it"; fi
else
	for _ in 1 2 3 4 5 6; do
		n=$((n + 1))
		echo "ok $n - -o onto another user's link # SKIP needs root (chown)"
	done
fi

# --- record: its options checked before the device
expect 64 "record -a --no-inherit" record -a --no-inherit -- true
has "$tmp/err" "--no-inherit is for the descendants" "record -a --no-inherit says why"
expect 64 "record without a target" record -o "$tmp/x.pmclog"
expect 64 "record --user without a command" record -a --user nobody -o "$tmp/x.pmclog"
has "$tmp/err" "--user is whom the command runs as: give the command" "record --user without a command says why"
expect 67 "record --user of a user that does not exist" record --user pmclog-no-such-user -o "$tmp/x.pmclog" -- true
has "$tmp/err" "--user pmclog-no-such-user: no such user" "record --user names the user it did not find"
if [[ -e $tmp/x.pmclog ]]; then not_ok "record refused: no log left"; else ok "record refused: no log left"; fi

echo "1..$n"
((failed == 0))
