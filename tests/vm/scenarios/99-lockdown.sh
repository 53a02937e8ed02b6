#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# Secure Boot's lockdown, as Debian's kernels apply it (lockdown=integrity:
# unsigned modules are refused, BPF is not): the kernel is locked down
# here, for good, so this scenario comes last in the boot.  insmod
# pmclog.ko fails; plain pmclog record falls back to BPF by itself and
# says why; dlopen/dlclose at one address passes through BPF and its
# report names both libraries' samples right; --no-bpf fails
# cleanly; lockdown=confidentiality then refuses BPF too, clearly.
# Locking down at run time is what the lockdown= boot option
# does at boot (security/lockdown: both set the same level, one way).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module
require_tool

LD=/sys/kernel/security/lockdown
[ -e "$LD" ] || mount -t securityfs none /sys/kernel/security 2>/dev/null
if [ ! -e "$LD" ]; then
	echo "no $LD: this kernel has no lockdown LSM" >&2
	exit 4
fi
module_loaded && rmmod pmclog
echo integrity >"$LD" 2>"$OUT/lockdown.err"
check "the kernel is locked down: integrity" grep -q '\[integrity\]' "$LD" ||
	bail "cannot lock the kernel down: $(cat "$OUT/lockdown.err")"

insmod "$PMCLOG_KO" 2>"$OUT/insmod.err"
rc=$?
check "insmod pmclog.ko is refused" [ "$rc" != 0 ]
check "... as lockdown refuses it (Operation not permitted)" \
	grep -q 'Operation not permitted' "$OUT/insmod.err"
diag "insmod: $(cat "$OUT/insmod.err")"

bounded 60 pmclog record -o "$OUT/plain.pmclog" -- /bin/dlswap /lib/workloads 1 \
	>"$OUT/plain.out" 2>"$OUT/plain.err"
is "$?" 0 "plain pmclog record -- dlswap exits 0"
check "it says the kernel is locked down and it records through BPF" \
	grep -q 'locked down (integrity), which refuses unsigned modules: recording through BPF' \
	"$OUT/plain.err"
dump_log "$OUT/plain.pmclog" "$OUT/plain.txt"
check "its INITIALIZE says the BPF collector wrote it" \
	grep -q '^INITIALIZE .* collector=bpf' "$OUT/plain.txt"
# shellcheck disable=SC2046 # two words
set -- $(kv_awk -t MAP_IN "$OUT/plain.txt" '$1 == "MAP_IN" && f["path"] ~ /libhot_[ab]\.so$/ { n++; s[f["start"]] = 1 }
	END { for (k in s) m++; print n + 0, m + 0 }')
is "$1" 2 "MAP_IN of libhot_a.so and of libhot_b.so"
is "$2" 1 "... both at one address"
is "$(last_type "$OUT/plain.txt")" CLOSELOG "the log ends with CLOSELOG"

bounded 30 pmclog record --no-bpf -o "$OUT/nobpf.pmclog" -- /bin/true \
	>"$OUT/nobpf.out" 2>"$OUT/nobpf.err"
is "$?" 69 "pmclog record --no-bpf exits 69 (EX_UNAVAILABLE) without the module"
check "... and leaves no log behind" [ ! -e "$OUT/nobpf.pmclog" ]

# The samples of each library's hot function are named after that
# library, though the two were mapped at one address: the collector's
# MAP_OUT came between them.  (Rerunning 80-dlopen[bpf] here, which
# checks the addresses against /proc/PID/maps, took a minute more under
# TCG, on BPF code that lockdown=integrity leaves as it is.)
bounded 60 pmclog report -i "$OUT/plain.pmclog" --format folded \
	>"$OUT/plain.folded" 2>"$OUT/plain-report.err"
is "$?" 0 "pmclog report --format folded of it exits 0" ||
	diag "$(tail -n 2 "$OUT/plain-report.err")"
F=$OUT/plain.folded
a=$(folded_count "$F" libhot_a.so hot_a)
b=$(folded_count "$F" libhot_b.so hot_b)
cross=$(($(folded_count "$F" libhot_a.so hot_b) + $(folded_count "$F" libhot_b.so hot_a)))
diag "report: $(folded_total "$F") samples; hot_a in libhot_a.so $a, hot_b in libhot_b.so $b, either in the other $cross"
# dlswap spins about 1 s in each, at the default 1 kHz: a quarter of that
# is far outside TCG's noise.
at_least "$a" 250 "samples of hot_a, named in libhot_a.so"
at_least "$b" 250 "samples of hot_b, named in libhot_b.so"
is "$cross" 0 "no sample of hot_a or hot_b named in the other library"

# lockdown=confidentiality forbids BPF to read kernel memory too: the
# recorder says so and stops, leaving no log.
echo confidentiality >"$LD" 2>>"$OUT/lockdown.err"
if grep -q '\[confidentiality\]' "$LD"; then
	bounded 60 pmclog record -o "$OUT/conf.pmclog" -- /bin/true \
		>"$OUT/conf.out" 2>"$OUT/conf.err"
	is "$?" 77 "lockdown=confidentiality: pmclog record exits 77 (EX_NOPERM)"
	check "... saying neither the module nor BPF can profile here" \
		grep -q 'lockdown=confidentiality, which forbids reading kernel memory from BPF' \
		"$OUT/conf.err"
	check "... and leaves no log behind" [ ! -e "$OUT/conf.pmclog" ]
else
	skip "lockdown=confidentiality" "could not raise the lockdown: $(cat "$OUT/lockdown.err")"
fi
