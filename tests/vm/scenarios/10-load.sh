#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The module loads, makes /dev/pmclog for root only, unloads, and loads
# again (leaving it loaded, as later scenarios expect).
# shellcheck source=tests/vm/lib.sh
. /lib/vmtest/lib.sh
require_module

if module_loaded; then
	check "rmmod a module loaded before the test" rmmod pmclog
fi

check "insmod pmclog.ko" insmod "$PMCLOG_KO" || bail "cannot go on without the module: $(dmesg | tail -n 5)"
check "/dev/pmclog is a character device" wait_for 5 test -c /dev/pmclog
# crw------- root root: only root (or CAP_PERFMON, by policy) may profile.
is "$(stat -c '%A %u:%g' /dev/pmclog 2>&1)" "crw------- 0:0" "/dev/pmclog is crw------- root:root"
check "pmclog listed in /proc/modules" module_loaded

check "rmmod pmclog" rmmod pmclog
check "/dev/pmclog gone after rmmod" wait_for 5 test ! -e /dev/pmclog
check "pmclog gone from /proc/modules" test -z "$(grep '^pmclog ' /proc/modules)"

check "insmod pmclog.ko again" insmod "$PMCLOG_KO"
check "/dev/pmclog back after the second insmod" wait_for 5 test -c /dev/pmclog
