#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# A module loaded after recording starts, exercised, unloaded, loaded
# again and exercised: MAP_IN/MAP_OUT with pid -1 for both loads, core and
# init text, KSYMBOL for its functions, in system-wide and process-mode
# logs alike (hwpmc told only system-wide owners), and samples in the busy
# function while it ran, in its init function while that ran.
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool
TESTMOD=/lib/modules/pmclog_testmod.ko
[ -f "$TESTMOD" ] || bail "prerequisite: $TESTMOD is in the initramfs"
module_load || bail "load pmclog.ko"

BUSY_MS=500
INIT_MS=300
HZ_REQ=1000

# The command both recordings run: two loads, each exercised, the first
# one spinning in its init function too.  A shell builtin does the write,
# so in process mode the samples belong to the target; insmod, its
# child, is followed (descendants are, by default).
cat >"$OUT/exercise.sh" <<EOS
insmod $TESTMOD init_spin_ms=$INIT_MS || exit 1
echo $BUSY_MS >/proc/pmclog_testmod || exit 1
rmmod pmclog_testmod || exit 1
insmod $TESTMOD || exit 1
echo $BUSY_MS >/proc/pmclog_testmod || exit 1
rmmod pmclog_testmod
EOS

# in_range_count TXT START END [FROM_TS TO_TS]: kernel samples with
# START <= pc < END (hex, same length), taken between the two stamps.
in_range_count() {
	kv_awk -t PCSAMPLE "$1" '$1 == "PCSAMPLE" && f["mode"] == "kernel" {
		pc = f["pc"]; t = f["ts"] + 0
		if (length(pc) == length("'"$2"'") && pc >= "'"$2"'" && pc < "'"$3"'" &&
		    t >= '"${4:-0}"' && t <= '"${5:-1e30}"') n++
	} END { print n + 0 }'
}

# hexadd HEX N: HEX + N, as 0x-prefixed lower-case hex.
hexadd() { printf '0x%x\n' $(($1 + $2)); }

check_log() {
	_name=$1
	_txt=$OUT/$_name.txt
	# Core text: flags KMODULE (0x2); init text: KMODULE|INIT (0xa).
	kv_awk -t MAP_IN "$_txt" '$1 == "MAP_IN" && f["pid"] == -1 && f["path"] == "pmclog_testmod" {
		print f["flags"], f["start"], f["end"], f["ts"] }' >"$OUT/$_name.maps"
	kv_awk -t MAP_OUT "$_txt" '$1 == "MAP_OUT" && f["pid"] == -1 { print f["start"], f["end"], f["ts"] }' \
		>"$OUT/$_name.outs"
	is "$(awk '$1 == "0x2"' "$OUT/$_name.maps" | wc -l)" 2 "$_name: MAP_IN pid -1 of the module's text, both loads"
	is "$(awk '$1 == "0xa"' "$OUT/$_name.maps" | wc -l)" 2 "$_name: MAP_IN pid -1 of its init text, both loads"
	nsym=$(kv_awk -t KSYMBOL "$_txt" '$1 == "KSYMBOL" && f["synth"] == 0 && f["name"] == "pmclog_testmod_busy" { n++ } END { print n + 0 }')
	is "$nsym" 2 "$_name: KSYMBOL pmclog_testmod_busy, both loads"

	load=0
	while read -r flags start end ts; do
		[ "$flags" = 0x2 ] || continue
		load=$((load + 1))
		# This load's MAP_OUT of the core text: the first one after it.
		out=$(awk -v s="$start" -v t="$ts" '$1 == s && $3 + 0 > t + 0 { print $3; exit }' "$OUT/$_name.outs")
		[ -n "$out" ] && ok "$_name: load $load: MAP_OUT pid -1 of the text after its MAP_IN" ||
			not_ok "$_name: load $load: MAP_OUT pid -1 of the text after its MAP_IN"
		sym=$(kv_awk -t KSYMBOL "$_txt" '$1 == "KSYMBOL" && f["synth"] == 0 && f["name"] == "pmclog_testmod_busy" &&
			f["ts"] + 0 >= '"$ts"' { print f["start"], f["size"]; exit }')
		# shellcheck disable=SC2086 # two words on purpose
		set -- ${sym:-0x0 0}
		n_mod=$(in_range_count "$_txt" "$start" "$end" "$ts" "${out:-1e30}")
		n_fn=$(in_range_count "$_txt" "$1" "$(hexadd "$1" "$2")" "$ts" "${out:-1e30}")
		# BUSY_MS at HZ_REQ, less TCG noise: at least 10% of it (the
		# rate is 20-system's check; a busy host starves the vCPU).
		at_least "$n_mod" $((BUSY_MS * HZ_REQ / 1000 * 10 / 100)) "$_name: load $load: kernel samples in the module's text"
		[ "$n_mod" -gt 0 ] &&
			in_band $((n_fn * 100 / n_mod)) 80 100 "$_name: load $load: share of them in pmclog_testmod_busy (percent)"
	done <"$OUT/$_name.maps"

	# The init text: samples while the first load spun in its init, in
	# insmod, which process mode follows as the target's child.
	# shellcheck disable=SC2046 # three words on purpose
	set -- $(awk '$1 == "0xa" { print $2, $3, $4; exit }' "$OUT/$_name.maps")
	if [ $# = 3 ]; then
		n_init=$(in_range_count "$_txt" "$1" "$2" "$3")
		at_least "$n_init" $((INIT_MS * HZ_REQ / 1000 * 10 / 100)) "$_name: kernel samples in the module's init text"
	fi
}

for name in system process; do
	opt=
	[ "$name" = system ] && opt=-a
	# shellcheck disable=SC2086 # opt is empty or one word
	bounded 60 pmclog record --no-kallsyms $opt -F "$HZ_REQ" -o "$OUT/$name.pmclog" -- sh "$OUT/exercise.sh" \
		>"$OUT/$name.out" 2>"$OUT/$name.err"
	is "$?" 0 "$name: pmclog record ${opt:+$opt }-- load, exercise, unload twice exits 0" ||
		diag "record: $(tail -n 3 "$OUT/$name.err")"
	dump_log "$OUT/$name.pmclog" "$OUT/$name.txt" ||
		diag "dump: $(tail -n 3 "$OUT/$name.txt.err")"
	check_log "$name"
done
if grep -q '^pmclog_testmod ' /proc/modules; then
	rmmod pmclog_testmod
fi
