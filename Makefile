# SPDX-License-Identifier: GPL-2.0
#
# The one top-level make for pmclog.
#
#   make                 module (against KDIR) and the pmclog tool
#   make check           every test: unit tests, then the VM scenarios
#   make demo            boot a VM with the module and profile a workload
#   make deps            install what the above need (Debian packages)
#
# KDIR is the kernel build tree the module is built against (default: the
# running kernel's).  The VM targets build their own copy of the module
# against the headers of each test kernel; KERNELS names those kernels.

KDIR	?= /lib/modules/$(shell uname -r)/build
KERNELS	?= 6.1-cloud
V	?= 0

export KERNELS

.PHONY: all module tool clean deps check unit vm demo bench lint

all: module tool

module:
	@test -d "$(KDIR)" || { \
	  echo "make: no kernel build tree at KDIR=$(KDIR)." >&2; \
	  echo "      Install the headers of the running kernel, pass KDIR=..., or run" >&2; \
	  echo "      'make check' / 'make demo', which fetch the test kernels' headers." >&2; \
	  exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" W=1 modules

tool:
	$(MAKE) -C tools/pmclog

deps:
	scripts/install-deps.sh

unit: deps
	$(MAKE) -C tests/unit check

vm: deps tool
	tests/vm/run.sh --kernels "$(KERNELS)"

check: deps
	$(MAKE) unit
	$(MAKE) vm

demo: deps tool
	tests/vm/run.sh --kernels "$(firstword $(KERNELS))" --demo

clean:
	-test -d "$(KDIR)" && $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	$(MAKE) -C tools/pmclog clean
	$(MAKE) -C tests/unit clean
	rm -rf build
