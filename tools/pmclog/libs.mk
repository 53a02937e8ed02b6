# SPDX-License-Identifier: GPL-2.0
#
# What libpmclog links with, for the tool, the library and the tests that
# link libpmclog.a: libelf for ELF files, libdw for their DWARF lines; zlib, liblzma and libzstd for
# .ko.gz/.ko.xz/.ko.zst (and zlib's crc32 for .gnu_debuglink); libiberty
# (static, Debian's libiberty-dev) for cplus_demangle; libdl for
# libdebuginfod, loaded only when DEBUGINFOD_URLS is set; libprotobuf-c
# packs report --format pprof's profile.proto; libbpf loads the BPF
# collector (record --bpf).
PMCLOG_LIBS	:= -lbpf -ldw -lelf -lprotobuf-c -lzstd -llzma -lz -liberty -ldl
