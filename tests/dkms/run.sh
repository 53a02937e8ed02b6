#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS builds pmclog.ko from the sources 'make install' stages, for each
# kernel in KERNELS (default 6.1-cloud), in a private DKMS tree: nothing is
# installed on the host.  A kernel outside dkms.conf's supported range is
# refused.  TAP, then "N passed, N failed"; exit 4 (skip) without dkms.
#
#   KERNELS="6.1-cloud 6.12-cloud" tests/dkms/run.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/kernels.sh
. "$repo/tests/vm/kernels.sh"

command -v dkms >/dev/null || { echo "1..0 # SKIP dkms is not installed (scripts/install-deps.sh)"; exit 4; }
version=$(sed -nE 's/^#define PMCLOG_ABI_(MAJOR|MINOR|PATCH)[[:space:]]+([0-9]+).*/\2/p' \
	"$repo/include/uapi/linux/pmclog.h" | paste -sd.)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
tap() {
	n=$((n + 1))
	if [[ $1 == ok ]]; then echo "ok $n - dkms: $2"; else echo "not ok $n - dkms: $2"; failed=$((failed + 1)); fi
}
mydkms() { dkms --dkmstree "$tmp/dkms" --sourcetree "$tmp/usr/src" -m pmclog -v "$version" "$@"; }

DESTDIR=$tmp VERSION=$version KVER=none "$repo/scripts/install-module.sh" install >/dev/null
mkdir -p "$tmp/dkms"
if mydkms add >"$tmp/add.log" 2>&1; then tap ok "add pmclog/$version"; else
	tap "not ok" "add pmclog/$version"
	sed 's/^/#   /' "$tmp/add.log"
fi

for spec in ${KERNELS:-6.1-cloud}; do
	rel=$(kernel_resolve "$spec") || { tap "not ok" "$spec: resolve the release"; continue; }
	if mydkms build -k "$rel" >"$tmp/build.log" 2>&1 &&
		compgen -G "$tmp/dkms/pmclog/$version/$rel/x86_64/module/pmclog.ko*" >/dev/null; then
		tap ok "build for $rel"
	else
		tap "not ok" "build for $rel"
		sed 's/^/#   /' "$tmp/build.log" | tail -n 20
	fi
done

# A kernel newer than the supported range: DKMS must leave it alone.
mydkms build -k 6.99.0-1-amd64 >"$tmp/refuse.log" 2>&1 || true
if grep -q 'BUILD_EXCLUSIVE' "$tmp/refuse.log"; then
	tap ok "refuses 6.99 (outside BUILD_EXCLUSIVE_KERNEL)"
else
	tap "not ok" "refuses 6.99 (outside BUILD_EXCLUSIVE_KERNEL)"
	sed 's/^/#   /' "$tmp/refuse.log"
fi

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
((failed == 0))
