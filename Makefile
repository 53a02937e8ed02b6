# SPDX-License-Identifier: GPL-2.0
#
# The one top-level make for pmclog.
#
#   make                 module (against KDIR) and the pmclog tool
#   make check           every test: unit tests (plain, then ASan+UBSan), pmclog
#                        script and pprof against perf on a real program (skipped
#                        where perf cannot record), a fixed-seed fuzz run, then
#                        the VM scenarios
#   make fuzz            the libFuzzer targets (tests/fuzz), FUZZ_SECONDS (60) each
#   make demo            boot a VM with the module and profile a workload
#   make bench           pmclog's figures beside perf's (tests/bench/run.sh;
#                        not part of make check): a table, build/bench/bench.json
#   make deps            install what the above need (Debian packages)
#   make lint            checkpatch --strict, sparse, mandoc, pmclog(1) vs options
#   make install         module (through DKMS when present), tool, library
#                        (libpmclog.a, .so, its public headers, libpmclog.pc),
#                        uapi header, man pages, udev rule; make uninstall
#
# KDIR is the kernel build tree the module is built against (default: the
# running kernel's, KVER).  The VM targets build their own copy of the
# module against the headers of each test kernel; KERNELS names those
# kernels: make check KERNELS="6.1-cloud 6.1-amd64 6.1-rt 6.12-cloud 6.12-amd64 6.12-rt".
# STRESS_KERNELS names more kernels that boot only the scenarios that
# load and kill, churn and stress the module (STRESS_SCENARIOS: not the
# BPF collector's 96 and 99, which run on the KERNELS).

KVER	?= $(shell uname -r)
KDIR	?= /lib/modules/$(KVER)/build
KERNELS	?= 6.1-cloud
STRESS_KERNELS	?=
STRESS_SCENARIOS := ^(10|5[05]|9[0-5]|98)-
V	?= 0

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
# udev reads rules from /etc and /usr/lib only, not from /usr/local.
UDEVRULESDIR	?= /etc/udev/rules.d
DKMS		?= $(shell command -v dkms 2>/dev/null)
# The package version is the ABI version of the uapi header.
VERSION		:= $(shell sed -nE 's/^\#define PMCLOG_ABI_(MAJOR|MINOR|PATCH)[[:space:]]+([0-9]+).*/\2/p' \
			include/uapi/linux/pmclog.h | paste -sd.)

export KERNELS

.PHONY: all module tool clean deps check unit unit-sanitize vm demo bench lint man-check \
	install uninstall

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
	$(if $(strip $(STRESS_KERNELS)),tests/vm/run.sh --kernels "$(STRESS_KERNELS)" \
		--only '$(STRESS_SCENARIOS)')

# The unit tests, and the tool they run, built with ASan and UBSan (any
# report fails), in a copy of the tree under build/sanitize so that the
# ordinary objects stay as they are.
SAN_CFLAGS	:= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
		   -fno-sanitize-recover=all
SAN_DIR		:= build/sanitize

unit-sanitize: deps
	rm -rf $(SAN_DIR) && mkdir -p $(SAN_DIR)
	git ls-files -co --exclude-standard -z -- include kmod tools tests/unit tests/kshim | \
		tar --null -T - -cf - | tar -xf - -C $(SAN_DIR)
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) -C $(SAN_DIR)/tests/unit check CFLAGS="$(SAN_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined"

# The libFuzzer targets over the reader, the replay, the report, the
# ELF loaders and the BPF collector's maps lines and ring paths
# (tests/fuzz/Makefile), each for FUZZ_SECONDS, growing a
# corpus kept between runs.  make check runs them instead for a fixed
# number of inputs from a fixed seed (make fuzz-check): deterministic, a
# failure there is the code's.  Any crash fails, naming the reproducer.
FUZZ_SECONDS		?= 60

.PHONY: fuzz fuzz-check
fuzz: deps
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

fuzz-check: deps
	$(MAKE) -C tests/fuzz check

check: deps
	$(MAKE) unit
	$(MAKE) unit-sanitize
	tests/man/check-options.sh
	tests/dkms/run.sh || [ $$? -eq 4 ]
	tests/compare/perf-script-vs-pmclog.sh || [ $$? -eq 4 ]
	$(MAKE) fuzz-check
	$(MAKE) vm

LINT_KERNELS ?= $(KERNELS)
export LINT_KERNELS

lint:
	KERNELS="$(LINT_KERNELS)" scripts/install-deps.sh --lint
	scripts/lint.sh

# pmclog(1) names every subcommand and option of the tool.
man-check:
	tests/man/check-options.sh

install: tool
	install -D -m 0755 tools/pmclog/pmclog $(DESTDIR)$(BINDIR)/pmclog
	$(MAKE) -C tools/pmclog install DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" \
		LIBDIR="$(LIBDIR)" INCLUDEDIR="$(INCLUDEDIR)"
	install -D -m 0644 include/uapi/linux/pmclog.h $(DESTDIR)$(INCLUDEDIR)/linux/pmclog.h
	install -D -m 0644 man/pmclog.1 $(DESTDIR)$(MANDIR)/man1/pmclog.1
	install -D -m 0644 man/libpmclog.3 $(DESTDIR)$(MANDIR)/man3/libpmclog.3
	install -D -m 0644 man/pmclog.4 $(DESTDIR)$(MANDIR)/man4/pmclog.4
	install -D -m 0644 udev/60-pmclog.rules $(DESTDIR)$(UDEVRULESDIR)/60-pmclog.rules
	VERSION=$(VERSION) KVER=$(KVER) KDIR=$(KDIR) DESTDIR=$(DESTDIR) DKMS=$(DKMS) \
		scripts/install-module.sh install
	@if [ -z "$(DESTDIR)" ] && command -v udevadm >/dev/null && [ -d /run/udev ]; then \
		udevadm control --reload; fi

uninstall:
	VERSION=$(VERSION) KVER=$(KVER) KDIR=$(KDIR) DESTDIR=$(DESTDIR) DKMS=$(DKMS) \
		scripts/install-module.sh uninstall
	$(MAKE) -C tools/pmclog uninstall DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" \
		LIBDIR="$(LIBDIR)" INCLUDEDIR="$(INCLUDEDIR)"
	rm -f $(DESTDIR)$(BINDIR)/pmclog $(DESTDIR)$(INCLUDEDIR)/linux/pmclog.h \
		$(DESTDIR)$(MANDIR)/man1/pmclog.1 $(DESTDIR)$(MANDIR)/man3/libpmclog.3 \
		$(DESTDIR)$(MANDIR)/man4/pmclog.4 \
		$(DESTDIR)$(UDEVRULESDIR)/60-pmclog.rules

demo: deps tool
	tests/vm/run.sh --kernels "$(firstword $(KERNELS))" --demo

# The benchmark boots BENCH_KERNEL (6.1-cloud) once: its headers come with
# KERNELS set to it.  Knobs: tests/bench/run.sh.
BENCH_KERNEL ?= 6.1-cloud
export BENCH_KERNEL

bench: tool
	KERNELS="$(BENCH_KERNEL)" scripts/install-deps.sh --bench
	tests/bench/run.sh

# make check-debug: every VM scenario, the stress ones too, on a debug
# kernel (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak) that
# scripts/build-debug-kernel.sh builds from Debian's linux-source-6.1
# into a cache outside the tree: the first run builds it, later ones only
# boot it.  Any checker's report, or a leak, fails the run.
DEBUG_KERNELS ?= 6.1-debug

.PHONY: check-debug
check-debug: tool
	KERNELS="$(DEBUG_KERNELS)" scripts/install-deps.sh
	scripts/build-debug-kernel.sh
	tests/vm/run.sh --kernels "$(DEBUG_KERNELS)"

clean:
	-test -d "$(KDIR)" && $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean
	$(MAKE) -C tools/pmclog clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/fuzz clean
	rm -rf build
