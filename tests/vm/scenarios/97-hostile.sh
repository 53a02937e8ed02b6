#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Another local user against root's recorder and report.  uid 65534 (the
# `hostile` workload, which drops to it first) maps files under its home
# and plants links, FIFOs and files where root's pmclog will look; root
# records system-wide with --archive, as the security review did:
#
#   - the archive's folder made by them, a link to /etc/cron.d inside:
#     refused, nothing written in /etc/cron.d;
#   - a mapping unmapped and removed at once, its path a link to
#     /etc/shadow: never opened by its path, the secret not in the archive;
#   - a FIFO there instead: the recording and its SIGINT are not stalled;
#   - a 64 GiB sparse ELF program run: refused by the archive, and by the
#     report, which must not read it into memory;
#   - their 0666 /tmp/pmclog.data, their link at -o (protected_symlinks
#     on and off): the log is a new file of root's, the link refused;
#   - an escape sequence in a mapped file's name: printed escaped.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
module_load || bail "load pmclog.ko"

ATT=65534
H=/tmp/att
mkdir -p $H && chown $ATT:$ATT $H && chmod 755 $H
printf 'root:SECRET-ROOT-HASH:19000:0:99999:7:::\n' >/etc/shadow
chmod 600 /etc/shadow
mkdir -p /etc/cron.d
ESC=$(printf '\033')

# record_a NAME ARGS...: `pmclog record -a` for a second, into $OUT/NAME.pmclog.
record_a() {
	_n=$1
	shift
	bounded 90 pmclog record --no-kallsyms -a -F 200 -o "$OUT/$_n.pmclog" "$@" -- sleep 1 \
		>"$OUT/$_n.out" 2>"$OUT/$_n.err"
}

# start_hostile NAME ARGS...: hostile in the background, once it says ready.
start_hostile() {
	_n=$1
	shift
	/bin/hostile $ATT "$@" >"$OUT/$_n.hostile" 2>&1 &
	HOSTILE=$!
	wait_for 20 grep -qs ready "$OUT/$_n.hostile" || diag "hostile $*: $(cat "$OUT/$_n.hostile")"
}

# ------------------------------------------------------------------
# Their folder as the archive, a link to /etc/cron.d in it

mkdir -p /tmp/arch/tmp && ln -s /etc/cron.d /tmp/arch/tmp/att && chown -hR $ATT:$ATT /tmp/arch
start_hostile cron hold /bin/busy $H/job 30
record_a cron --archive /tmp/arch
is "$?" 73 "record --archive into another user's folder exits EX_CANTCREAT" ||
	diag "$(tail -n 3 "$OUT/cron.err")"
grep -q "another user's folder" "$OUT/cron.err"
is "$?" 0 "and says whose folder it is" || diag "$(tail -n 3 "$OUT/cron.err")"
check "nothing was written in /etc/cron.d" test ! -e /etc/cron.d/job
kill "$HOSTILE" 2>/dev/null
wait "$HOSTILE" 2>/dev/null

# The same map into a folder of root's: copied, with its own mode.
start_hostile own hold /bin/busy $H/job 30
record_a own --archive /tmp/arch-root
is "$?" 0 "record --archive into a new folder exits 0" || diag "$(tail -n 3 "$OUT/own.err")"
cmp -s /bin/busy /tmp/arch-root$H/job
is "$?" 0 "the archive holds their mapped program as it was"
is "$(stat -c %a /tmp/arch-root)" 700 "the archive's folder is root's alone (0700)"
is "$(stat -c %a /tmp/arch-root$H/job)" 755 "the copy keeps the source's mode (0755)"
kill "$HOSTILE" 2>/dev/null
wait "$HOSTILE" 2>/dev/null

# ------------------------------------------------------------------
# A mapping gone at once, its path a link to /etc/shadow

start_hostile shadow swap /bin/busy $H/f /etc/shadow 6
record_a shadow --archive /tmp/arch-shadow
is "$?" 0 "record --archive beside the link swapper exits 0" || diag "$(tail -n 3 "$OUT/shadow.err")"
wait "$HOSTILE"
diag "$(grep rounds= "$OUT/shadow.hostile") $(grep archived "$OUT/shadow.err")"
check "no copy of /etc/shadow anywhere in the archive" sh -c "! grep -rq SECRET-ROOT-HASH /tmp/arch-shadow"
check "their path is not in the archive" test ! -e /tmp/arch-shadow$H/f

# ------------------------------------------------------------------
# A FIFO where the mapping was: the recording and SIGINT go on

start_hostile fifo swap /bin/busy $H/p fifo 8
sigdfl pmclog record --no-kallsyms -a -F 200 --archive /tmp/arch-fifo -o "$OUT/fifo.pmclog" \
	>"$OUT/fifo.out" 2>"$OUT/fifo.err" &
rec=$!
sleep 4
check "recorder still running beside the FIFOs" kill -0 "$rec"
kill -INT "$rec"
if wait_exit "$rec" 30; then
	is "$WAIT_STATUS" 0 "recorder exits 0 after SIGINT beside the FIFOs" ||
		diag "$(tail -n 3 "$OUT/fifo.err")"
else
	not_ok "recorder exits within 30 s of SIGINT beside the FIFOs"
	kill -KILL "$rec"
fi
wait "$HOSTILE"
dump_log "$OUT/fifo.pmclog" "$OUT/fifo.txt"
is "$(last_type "$OUT/fifo.txt")" CLOSELOG "its log ends with CLOSELOG"
at_least "$(grep -c "^MAP_IN .*$H/p" "$OUT/fifo.txt")" 1 "the log saw their mappings"
rm -f "$OUT/fifo.txt"

# ------------------------------------------------------------------
# A 64 GiB sparse ELF file, run: its samples make the report look it up

/bin/hostile $ATT sparse /bin/busy $H/huge 68719476736 0 >"$OUT/sparse.hostile" 2>&1
bounded 90 pmclog record --no-kallsyms -a -F 200 --archive /tmp/arch-sparse -o "$OUT/sparse.pmclog" \
	-- /bin/hostile $ATT run $H/huge 2 >"$OUT/sparse.out" 2>"$OUT/sparse.err"
is "$?" 0 "record --archive of a 64 GiB sparse program exits 0" || diag "$(tail -n 3 "$OUT/sparse.err")"
grep -q "huge not copied: larger than the archive's limit" "$OUT/sparse.err"
is "$?" 0 "the archive refuses it, and says why" || diag "$(tail -n 3 "$OUT/sparse.err")"
at_least "$((100000 - $(du -sk /tmp/arch-sparse | cut -f1)))" 1 "the archive took no more than 100 MB"
bounded 60 pmclog report -i "$OUT/sparse.pmclog" --sort dso >"$OUT/sparse-report.out" 2>"$OUT/sparse-report.err"
is "$?" 0 "report of its samples exits 0, without reading it into memory" ||
	diag "$(tail -n 3 "$OUT/sparse-report.err")"
grep -q "huge" "$OUT/sparse-report.out"
is "$?" 0 "and names the object of its samples" || diag "$(head -n 12 "$OUT/sparse-report.out")"
rm -f $H/huge

# ------------------------------------------------------------------
# -o: their 0666 pmclog.data, their link

rm -f /tmp/pmclog.data /tmp/pmclog.data.old
touch /tmp/pmclog.data && chown $ATT:$ATT /tmp/pmclog.data && chmod 666 /tmp/pmclog.data
(cd /tmp && bounded 60 pmclog record --no-kallsyms -a -F 200 -- sleep 1 >"$OUT/data.out" 2>"$OUT/data.err")
is "$?" 0 "record in /tmp beside their pmclog.data exits 0" || diag "$(tail -n 3 "$OUT/data.err")"
is "$(stat -c '%u %a' /tmp/pmclog.data)" "0 600" "the log is a new file of root's, 0600"
is "$(stat -c '%u %s' /tmp/pmclog.data.old)" "$ATT 0" "theirs is left as pmclog.data.old, empty"

printf 'root:x:0:0:root:/root:/bin/sh\n' >/tmp/victim
for ps in 0 1; do
	echo "$ps" >/proc/sys/fs/protected_symlinks
	rm -f /tmp/link.pmclog
	ln -s /tmp/victim /tmp/link.pmclog && chown -h $ATT:$ATT /tmp/link.pmclog
	bounded 60 pmclog record --no-kallsyms -a -F 200 -o /tmp/link.pmclog -- sleep 1 \
		>"$OUT/link$ps.out" 2>"$OUT/link$ps.err"
	is "$?" 77 "record -o onto their link exits EX_NOPERM (protected_symlinks=$ps)" ||
		diag "$(tail -n 3 "$OUT/link$ps.err")"
	is "$(cat /tmp/victim)" "root:x:0:0:root:/root:/bin/sh" "what the link names is untouched (protected_symlinks=$ps)"
done
echo 0 >/proc/sys/fs/protected_symlinks

# ------------------------------------------------------------------
# An escape sequence in a name: escaped wherever it is printed.  A text
# file mapped under it (the archive says it is not ELF), a program run
# under it and gone before the report (the report says it cannot read it)

name="$H/${ESC}[2Jevil"
printf 'not an ELF file\n' >/tmp/text
start_hostile esc hold /tmp/text "$name.txt" 30
/bin/hostile $ATT hold /bin/busy "$name" 0 >/dev/null 2>&1
bounded 90 pmclog record --no-kallsyms -a -F 200 --archive /tmp/arch-esc -o "$OUT/esc.pmclog" \
	-- /bin/hostile $ATT run "$name" 2 >"$OUT/esc.out" 2>"$OUT/esc.err"
is "$?" 0 "record --archive beside an escape in a name exits 0" || diag "$(tail -n 3 "$OUT/esc.err")"
grep -qF '\x1b[2Jevil.txt not copied: not an ELF file' "$OUT/esc.err"
is "$?" 0 "the archive's warning names it escaped" || diag "$(tail -n 3 "$OUT/esc.err" | od -c | head -n 5)"
check "no escape byte reached the recorder's messages" sh -c "! grep -q '$ESC' '$OUT/esc.err'"
rm -f "$name"
bounded 60 pmclog report -v -i "$OUT/esc.pmclog" --sort dso >"$OUT/esc-report.out" 2>"$OUT/esc-report.err"
is "$?" 0 "report -v of its log exits 0" || diag "$(tail -n 3 "$OUT/esc-report.err")"
grep -qF '\x1b[2Jevil' "$OUT/esc-report.err"
is "$?" 0 "the report's warning names it escaped" || diag "$(grep -a evil "$OUT/esc-report.err" | od -c | head -n 5)"
check "no escape byte reached the report's messages" sh -c "! grep -q '$ESC' '$OUT/esc-report.err'"
grep -qF '\x1b[2Jevil' "$OUT/esc-report.out"
is "$?" 0 "the report's table names it escaped"
check "no escape byte reached the report's table" sh -c "! grep -q '$ESC' '$OUT/esc-report.out'"
kill "$HOSTILE" 2>/dev/null
wait "$HOSTILE" 2>/dev/null

rm -rf /tmp/arch* $H /tmp/pmclog.data* /tmp/victim /tmp/link.pmclog /tmp/text
kernel_log_clean
