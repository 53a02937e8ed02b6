#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install or remove pmclog.ko; called by 'make install' / 'make uninstall'.
#
#   scripts/install-module.sh install|uninstall
#
# Environment (the Makefile passes them): VERSION, KVER (the kernel to
# build for now, default the running one), KDIR (its build tree), DESTDIR,
# DKMS (path of dkms, empty when absent).
#
# With dkms and no DESTDIR: the module's sources go to
# /usr/src/pmclog-VERSION with dkms.conf, and dkms add/build/install them
# for KVER; DKMS rebuilds the module for every kernel installed later
# (AUTOINSTALL, within dkms.conf's BUILD_EXCLUSIVE_KERNEL).
# With DESTDIR (a package being built): only the sources and dkms.conf are
# staged under DESTDIR/usr/src, for the package's scripts to hand to dkms.
# Without dkms: built against KDIR and installed into
# /lib/modules/KVER/updates, then depmod; no rebuild on kernel upgrades.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
: "${VERSION:?}" "${KVER:=$(uname -r)}" "${KDIR:=/lib/modules/$KVER/build}"
DESTDIR=${DESTDIR:-}
DKMS=${DKMS:-}
src=$DESTDIR/usr/src/pmclog-$VERSION

say() { echo "install-module: $*"; }

stage_sources() {
	rm -rf "$src"
	install -d "$src/kmod" "$src/include/uapi/linux"
	install -m 0644 "$repo/Kbuild" "$repo/LICENSE" "$src/"
	install -m 0644 "$repo"/kmod/Kbuild "$repo"/kmod/*.[ch] "$src/kmod/"
	install -m 0644 "$repo/include/uapi/linux/pmclog.h" "$src/include/uapi/linux/"
	sed "s/@VERSION@/$VERSION/" "$repo/dkms.conf" >"$src/dkms.conf"
	chmod 0644 "$src/dkms.conf"
}

dkms_has() { "$DKMS" status -m pmclog -v "$VERSION" 2>/dev/null | grep -q .; }

install_module() {
	if [[ -n $DESTDIR ]]; then
		stage_sources
		say "staged the sources for DKMS in $src"
		return
	fi
	if [[ -n $DKMS ]]; then
		dkms_has && "$DKMS" remove -m pmclog -v "$VERSION" --all
		stage_sources
		"$DKMS" add -m pmclog -v "$VERSION"
		if [[ -d $KDIR ]]; then
			"$DKMS" install -m pmclog -v "$VERSION" -k "$KVER"
		else
			say "no headers for $KVER ($KDIR): DKMS builds pmclog when a kernel's headers are installed"
		fi
		return
	fi
	[[ -d $KDIR ]] || { say "no kernel build tree at $KDIR; install the headers or pass KDIR/KVER" >&2; exit 1; }
	make -C "$KDIR" M="$repo" W=1 modules
	make -C "$KDIR" M="$repo" INSTALL_MOD_DIR=updates modules_install
	depmod -a "$KVER"
}

uninstall_module() {
	if [[ -n $DKMS && -z $DESTDIR ]] && dkms_has; then
		"$DKMS" remove -m pmclog -v "$VERSION" --all
	fi
	rm -rf "$src"
	if [[ -z $DESTDIR ]]; then
		rm -f /lib/modules/"$KVER"/updates/pmclog.ko /lib/modules/"$KVER"/updates/pmclog.ko.*
		[[ -d /lib/modules/$KVER ]] && depmod -a "$KVER"
	fi
	return 0
}

case "${1:-}" in
install) install_module ;;
uninstall) uninstall_module ;;
*) echo "usage: $0 install|uninstall" >&2; exit 64 ;;
esac
