/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel structures pmclog.bpf.c reads, reduced to the fields it
 * reads.  Every access is relocated by libbpf against the running
 * kernel's BTF (CO-RE, preserve_access_index), so neither the order nor
 * the offsets here matter, only the names: no vmlinux.h is needed to
 * build, and one object loads on every kernel with BTF.  Where kernels
 * differ, both shapes are declared as ___flavours and chosen with
 * bpf_core_field_exists() in pmclog.bpf.c.
 */
#ifndef PMCLOG_BPF_KERNEL_H
#define PMCLOG_BPF_KERNEL_H

#include <linux/types.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct list_head {
	struct list_head *next, *prev;
};

struct qstr {
	const unsigned char *name;
};

struct dentry;

struct dentry_operations {
	char *(*d_dname)(struct dentry *, char *, int);
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	const struct dentry_operations *d_op;
};

struct vfsmount {
	struct dentry *mnt_root;
};

/* fs/mount.h: a struct vfsmount is the mnt member of a struct mount. */
struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file {
	struct path f_path;
};

typedef struct {
	void *vdso;
} mm_context_t;

struct mm_struct {
	mm_context_t context;
};

/* 6.3 put vm_flags in a union, 6.12 vm_start and vm_end: same names. */
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	struct mm_struct *vm_mm;
	unsigned long vm_flags;
	unsigned long vm_pgoff;
	struct file *vm_file;
	const void *vm_ops;
	void *vm_private_data;
};

/* A special mapping's ("[vdso]") vm_private_data, when vm_ops is theirs. */
struct vm_special_mapping {
	const char *name;
};

struct signal_struct {
	unsigned int flags;
	int group_exit_code;
};

struct thread_info {
	__u32 status;
};

struct task_struct {
	struct thread_info thread_info;
	unsigned int flags;
	int pid;
	int tgid;
	int exit_code;
	struct mm_struct *mm;
	struct signal_struct *signal;
};

struct linux_binprm {
	struct file *file;
};

struct elf64_sym {
	__u32 st_name;
	__u8 st_info;
	__u8 st_other;
	__u16 st_shndx;
	__u64 st_value;
	__u64 st_size;
};

struct mod_kallsyms {
	struct elf64_sym *symtab;
	unsigned int num_symtab;
	char *strtab;
	char *typetab;
};

/* Before 6.4: text is the first text_size bytes of each layout. */
struct module_layout {
	void *base;
	unsigned int text_size;
};

/* From 6.4: one struct module_memory per kind, MOD_TEXT and MOD_INIT_TEXT. */
struct module_memory {
	void *base;
	unsigned int size;
};

struct module {
	struct list_head list;
	char name[56];
	struct mod_kallsyms *kallsyms;
};

struct module___layout {
	struct module_layout core_layout;
	struct module_layout init_layout;
};

struct module___memory {
	struct module_memory mem[7];
};

#pragma clang attribute pop

#define PMCLOG_BPF_MOD_TEXT		0	/* enum mod_mem_type */
#define PMCLOG_BPF_MOD_INIT_TEXT	4

#define PMCLOG_BPF_VM_EXEC		0x4UL
#define PMCLOG_BPF_PF_EXITING		0x4U
#define PMCLOG_BPF_SIGNAL_GROUP_EXIT	0x4U
#define PMCLOG_BPF_TS_COMPAT		0x2U	/* a 32-bit syscall is active */
#define PMCLOG_BPF_NR_MREMAP		25	/* __NR_mremap, x86-64 */

#endif /* PMCLOG_BPF_KERNEL_H */
