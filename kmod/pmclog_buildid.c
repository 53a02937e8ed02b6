// SPDX-License-Identifier: GPL-2.0
/*
 * GNU build-ids (the NT_GNU_BUILD_ID note) of what a log maps: the files
 * behind executable mappings, and modules as they load.  BUILDID records
 * carry them (include/uapi/linux/pmclog.h), so that a report names a
 * sample only from the build of the object that ran.
 *
 * A file's build-id is read from its pages in the page cache and nowhere
 * else, as lib/buildid.c does for perf's MMAP2 and BPF stack maps: no I/O,
 * no sleep, no lock that a filesystem takes, so it may run under
 * mmap_lock or in a hook.  The ELF and program headers and the notes of an
 * object that was just mapped are in the cache (the loader read them);
 * when they are not, the object is logged without a build-id rather than
 * waiting for a disk, or for a FUSE server that may be the process whose
 * mappings are being walked.
 *
 * A module's build-id comes from its ELF image while the loader still has
 * it: a kprobe on module_finalize(hdr, sechdrs, mod), which every load
 * calls after relocation and before the module's COMING notification
 * (kernel/module/main.c, post_relocation()).  The note is not reachable
 * from struct module later (the sysfs notes attributes are private to
 * kernel/module/sysfs.c, and made after COMING).  The kprobe keeps it in a
 * small table that the COMING notifier takes it from.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/buildid.h>
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/kprobes.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "pmclog_kern.h"
#include "pmclog_compat.h"

/* NT_GNU_BUILD_ID of <elf.h>; lib/buildid.c spells it BUILD_ID. */
#define PMCLOG_NT_GNU_BUILD_ID	3
static_assert(PMCLOG_BUILD_ID_MAX == BUILD_ID_SIZE_MAX);

/*
 * The most of a file read for its headers and notes: notes sit right
 * after the program headers in every linker's layout, in the first page.
 */
#define PMCLOG_BUILDID_SCAN	(2 * PAGE_SIZE)
#define PMCLOG_BUILDID_PHNUM	64	/* program headers looked at */

/*
 * Copy [@pos, @pos + @len) of @mapping from the page cache into @buf.
 * False when a page is not there or not up to date: nothing is read in.
 * find_get_page() rather than filemap_get_folio(), whose miss is NULL on
 * 6.1 and an ERR_PTR on 6.12; it gives the right page of a large folio.
 */
static bool pmclog_buildid_copy(struct address_space *mapping, loff_t pos,
				void *buf, size_t len)
{
	while (len) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page;
		void *kaddr;

		page = find_get_page(mapping, pos >> PAGE_SHIFT);
		if (!page)
			return false;
		if (!PageUptodate(page)) {
			put_page(page);
			return false;
		}
		kaddr = kmap_local_page(page);
		memcpy(buf, kaddr + off, n);
		kunmap_local(kaddr);
		put_page(page);
		buf += n;
		pos += n;
		len -= n;
	}
	return true;
}

/*
 * The build-id among the notes in @notes (@size bytes, 4-byte aligned
 * entries as both ELF classes write them), and in *@at its offset there.
 * False if none.
 */
static bool pmclog_buildid_in_notes(const void *notes, size_t size,
				    struct pmclog_build_id *id, size_t *at)
{
	size_t off = 0;

	while (size - off >= sizeof(struct elf64_note)) {
		const struct elf64_note *n = notes + off;	/* struct elf32_note alike */
		size_t name = ALIGN(n->n_namesz, 4), desc = ALIGN(n->n_descsz, 4);
		const char *p = (const char *)(n + 1);

		if (name > size - off - sizeof(*n) ||
		    desc > size - off - sizeof(*n) - name)
			return false;
		if (n->n_type == PMCLOG_NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(p, "GNU", 4) && n->n_descsz &&
		    n->n_descsz <= PMCLOG_BUILD_ID_MAX) {
			id->size = n->n_descsz;
			memcpy(id->data, p + name, n->n_descsz);
			*at = off + sizeof(*n) + name;
			return true;
		}
		off += sizeof(*n) + name + desc;
	}
	return false;
}

/* The bounds of PT_NOTE @i of the program headers in @ph, either class. */
static void pmclog_buildid_phdr(const void *ph, bool is64, unsigned int i,
				u32 *type, u64 *off, u64 *size)
{
	if (is64) {
		const struct elf64_phdr *p = (const struct elf64_phdr *)ph + i;

		*type = p->p_type;
		*off = p->p_offset;
		*size = p->p_filesz;
	} else {
		const struct elf32_phdr *p = (const struct elf32_phdr *)ph + i;

		*type = p->p_type;
		*off = p->p_offset;
		*size = p->p_filesz;
	}
}

/*
 * The build-id of the ELF file @file, from the page cache only, and in
 * *@at its offset in the file; @buf is PMCLOG_SCRATCH_SIZE bytes of
 * scratch.  Any context but NMI.  False when it has none, is not ELF, or
 * the pages holding it are not cached.
 */
static bool pmclog_buildid_of_file(struct file *file, void *buf,
				   struct pmclog_build_id *id, u64 *at)
{
	struct address_space *mapping = file->f_mapping;
	loff_t isize = i_size_read(file_inode(file));
	union {
		struct elf32_hdr e32;
		struct elf64_hdr e64;
	} eh;
	u64 phoff, phsize;
	unsigned int phnum, i;
	size_t in_notes;
	bool is64;

	BUILD_BUG_ON(PMCLOG_BUILDID_PHNUM * sizeof(struct elf64_phdr) > PMCLOG_SCRATCH_SIZE);
	/*
	 * hugetlbfs (SHM_HUGETLB and MFD_HUGETLB included) indexes its page
	 * cache in huge pages, not PAGE_SIZE; secretmem pages are not in the
	 * direct map (mounted noexec today, but not by our say).  By the
	 * superblock: is_file_hugepages() needs symbols 6.1 does not export.
	 */
	switch (file_inode(file)->i_sb->s_magic) {
	case HUGETLBFS_MAGIC:
	case SECRETMEM_MAGIC:
		return false;
	}
	if (isize < (loff_t)sizeof(eh.e64) ||
	    !pmclog_buildid_copy(mapping, 0, &eh, sizeof(eh.e64)))
		return false;
	if (memcmp(eh.e64.e_ident, ELFMAG, SELFMAG) ||
	    eh.e64.e_ident[EI_DATA] != ELFDATA2LSB)
		return false;
	is64 = eh.e64.e_ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		if (eh.e64.e_phentsize != sizeof(struct elf64_phdr))
			return false;
		phoff = eh.e64.e_phoff;
		phnum = eh.e64.e_phnum;
	} else if (eh.e32.e_ident[EI_CLASS] == ELFCLASS32) {
		if (eh.e32.e_phentsize != sizeof(struct elf32_phdr))
			return false;
		phoff = eh.e32.e_phoff;
		phnum = eh.e32.e_phnum;
	} else {
		return false;
	}
	phnum = min_t(unsigned int, phnum, PMCLOG_BUILDID_PHNUM);
	phsize = (u64)phnum *
		 (is64 ? sizeof(struct elf64_phdr) : sizeof(struct elf32_phdr));
	if (!phnum || phoff >= PMCLOG_BUILDID_SCAN ||
	    phsize > PMCLOG_BUILDID_SCAN - phoff || phoff + phsize > isize ||
	    !pmclog_buildid_copy(mapping, phoff, buf, phsize))
		return false;
	/* Each note segment in turn, in the scratch past the headers. */
	for (i = 0; i < phnum; i++) {
		void *notes = buf + ALIGN(phsize, 8);
		u64 off, size;
		u32 type;

		pmclog_buildid_phdr(buf, is64, i, &type, &off, &size);
		if (type != PT_NOTE || off >= PMCLOG_BUILDID_SCAN || off % 4)
			continue;
		size = min_t(u64, size, PMCLOG_BUILDID_SCAN - off);
		size = min_t(u64, size, PMCLOG_SCRATCH_SIZE - ALIGN(phsize, 8));
		if (off + size > isize ||
		    !pmclog_buildid_copy(mapping, off, notes, size))
			continue;
		if (pmclog_buildid_in_notes(notes, size, id, &in_notes)) {
			*at = off + in_notes;
			return true;
		}
	}
	return false;
}

/*
 * The build-ids found last, by file, and where: an object mapped again
 * and again (dlopen() and dlclose() in a loop, a shell running the same
 * programs) costs one page lookup at each MAP_IN, not the four of its
 * headers and notes that were most of the deferred work.  An entry names
 * its file by copies (superblock, inode number and generation: never a
 * pointer that is followed) and what a change to the contents changes
 * too (size, ctime); the last one found in a slot replaces the one there.
 * A hit still reads the build-id's bytes where they were found, and must
 * find them: the ctime moves before a write copies its data, only once a
 * tick, and not at each store through a shared mapping, so the key alone
 * could name contents that are gone.  Files without a build-id are looked
 * at each time.
 */
#define PMCLOG_BUILDID_CACHE_BITS	6

struct pmclog_buildid_cached {
	const struct super_block *sb;	/* compared, never dereferenced */
	unsigned long ino;
	u32 generation;
	loff_t size;
	struct timespec64 ctime;
	u64 at;				/* the build-id's offset in the file */
	struct pmclog_build_id id;	/* size 0: an empty slot */
};

static struct pmclog_buildid_cached pmclog_buildid_cache[1 << PMCLOG_BUILDID_CACHE_BITS];
static DEFINE_RAW_SPINLOCK(pmclog_buildid_cache_lock);

/* @inode as the cache keys and checks it. */
static void pmclog_buildid_key(const struct inode *inode,
			       struct pmclog_buildid_cached *key)
{
	key->sb = inode->i_sb;
	key->ino = inode->i_ino;
	key->generation = inode->i_generation;
	key->size = i_size_read(inode);
	key->ctime = pmclog_compat_inode_ctime(inode);
}

static bool pmclog_buildid_same_file(const struct pmclog_buildid_cached *a,
				     const struct pmclog_buildid_cached *b)
{
	return a->sb == b->sb && a->ino == b->ino &&
	       a->generation == b->generation && a->size == b->size &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

static unsigned int pmclog_buildid_slot(const struct pmclog_buildid_cached *key)
{
	return hash_long(key->ino ^ (unsigned long)key->sb, PMCLOG_BUILDID_CACHE_BITS);
}

/*
 * The build-id cached for @key's file into @id, if the file still holds
 * it where it was found (@file's page cache): whether it does.
 */
static bool pmclog_buildid_cache_get(const struct pmclog_buildid_cached *key,
				     struct file *file, struct pmclog_build_id *id)
{
	const struct pmclog_buildid_cached *e = &pmclog_buildid_cache[pmclog_buildid_slot(key)];
	u8 now[PMCLOG_BUILD_ID_MAX];
	unsigned long flags;
	bool hit;
	u64 at;

	raw_spin_lock_irqsave(&pmclog_buildid_cache_lock, flags);
	hit = e->id.size && pmclog_buildid_same_file(e, key);
	if (hit) {
		*id = e->id;
		at = e->at;
	}
	raw_spin_unlock_irqrestore(&pmclog_buildid_cache_lock, flags);
	return hit && at + id->size <= key->size &&
	       pmclog_buildid_copy(file->f_mapping, at, now, id->size) &&
	       !memcmp(now, id->data, id->size);
}

static void pmclog_buildid_cache_put(const struct pmclog_buildid_cached *key,
				     const struct pmclog_build_id *id, u64 at)
{
	struct pmclog_buildid_cached *e = &pmclog_buildid_cache[pmclog_buildid_slot(key)];
	unsigned long flags;

	raw_spin_lock_irqsave(&pmclog_buildid_cache_lock, flags);
	*e = *key;
	e->at = at;
	e->id = *id;
	raw_spin_unlock_irqrestore(&pmclog_buildid_cache_lock, flags);
}

/*
 * After the MAP_IN of @file at @start in @log: its BUILDID, when the page
 * cache shows one (or showed it for the file as it still is), with the
 * MAP_IN's @cpu and @tstamp.  @buf is PMCLOG_SCRATCH_SIZE bytes of
 * scratch.  As pmclog_buildid_of_file().
 */
void pmclog_buildid_log_file(struct pmclog_log *log, struct file *file,
			     void *buf, u32 pid, u64 start, unsigned int cpu,
			     u64 tstamp)
{
	struct pmclog_buildid_cached key;
	struct pmclog_build_id id;
	struct pmclog_buildid r;
	u64 at;

	/*
	 * The key before the pages: what a write in between makes us
	 * read is cached under a ctime that the file no longer has.
	 */
	pmclog_buildid_key(file_inode(file), &key);
	if (!pmclog_buildid_cache_get(&key, file, &id)) {
		if (!pmclog_buildid_of_file(file, buf, &id, &at))
			return;
		pmclog_buildid_cache_put(&key, &id, at);
	}
	pmclog_rec_buildid(&r, pid, start, &id, cpu, tstamp);
	pmclog_log_write(log, &r);
}

/* ------------------------------------------------------------------ */
/* Modules                                                            */

/*
 * Build-ids of modules between module_finalize() and COMING.  Loads run
 * in parallel, but few at a time.  An entry is keyed by the module, and
 * every load writes its own (size 0: the image has no build-id) before
 * its COMING: a stale one, of a load that failed in between, is replaced
 * by the next load at that address, never taken by it.  With more than
 * PMCLOG_BUILDID_PENDING loads in flight, one may go without.
 */
#define PMCLOG_BUILDID_PENDING	16

static struct {
	const struct module	*mod;
	struct pmclog_build_id	id;
} pmclog_buildid_pending[PMCLOG_BUILDID_PENDING];
static unsigned int pmclog_buildid_next;	/* under the lock */
static DEFINE_RAW_SPINLOCK(pmclog_buildid_lock);

/* The build-id note among the sections of a module's ELF image. */
static bool pmclog_buildid_of_image(const struct elf64_hdr *hdr,
				    const struct elf64_shdr *sechdrs,
				    struct pmclog_build_id *id)
{
	const struct elf64_shdr *strtab;
	const char *secstrings;
	unsigned int i;

	if (!hdr->e_shstrndx || hdr->e_shstrndx >= hdr->e_shnum)
		return false;
	/*
	 * The loader checked every section's offset and size against the
	 * image, but sh_name only for SHF_ALLOC sections: the note is one,
	 * and its name is bounded here all the same.
	 */
	strtab = &sechdrs[hdr->e_shstrndx];
	secstrings = (const char *)hdr + strtab->sh_offset;
	for (i = 1; i < hdr->e_shnum; i++) {
		const struct elf64_shdr *s = &sechdrs[i];
		static const char name[] = ".note.gnu.build-id";
		size_t at;

		if (s->sh_type != SHT_NOTE || !(s->sh_flags & SHF_ALLOC) ||
		    s->sh_name >= strtab->sh_size ||
		    strtab->sh_size - s->sh_name < sizeof(name) ||
		    memcmp(secstrings + s->sh_name, name, sizeof(name)))
			continue;
		return pmclog_buildid_in_notes((const char *)hdr + s->sh_offset,
					       s->sh_size, id, &at);
	}
	return false;
}

/*
 * module_finalize(hdr, sechdrs, mod): its Elf_Ehdr and Elf_Shdr are
 * struct elf64_hdr and struct elf64_shdr on x86-64.
 */
static int pmclog_buildid_finalize_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct elf64_hdr *hdr = (void *)regs_get_kernel_argument(regs, 0);
	const struct elf64_shdr *sechdrs = (void *)regs_get_kernel_argument(regs, 1);
	const struct module *mod = (void *)regs_get_kernel_argument(regs, 2);
	struct pmclog_build_id id = { .size = 0 };
	unsigned long flags;
	unsigned int i, slot;

	/* Claimed with or without one: see pmclog_buildid_pending. */
	if (!pmclog_buildid_of_image(hdr, sechdrs, &id))
		id.size = 0;
	raw_spin_lock_irqsave(&pmclog_buildid_lock, flags);
	slot = pmclog_buildid_next++ % PMCLOG_BUILDID_PENDING;
	for (i = 0; i < PMCLOG_BUILDID_PENDING; i++)
		if (pmclog_buildid_pending[i].mod == mod)
			slot = i;
	pmclog_buildid_pending[slot].mod = mod;
	pmclog_buildid_pending[slot].id = id;
	raw_spin_unlock_irqrestore(&pmclog_buildid_lock, flags);
	return 0;
}

static struct kprobe pmclog_buildid_kp = {
	.symbol_name	= "module_finalize",
	.pre_handler	= pmclog_buildid_finalize_pre,
};

static bool pmclog_buildid_kp_on;

/*
 * The build-id of @mod, which is COMING: taken from the table, so asked
 * once per load.  False if the loader showed none.
 */
bool pmclog_buildid_take_module(const struct module *mod,
				struct pmclog_build_id *id)
{
	unsigned long flags;
	bool found = false;
	unsigned int i;

	raw_spin_lock_irqsave(&pmclog_buildid_lock, flags);
	for (i = 0; i < PMCLOG_BUILDID_PENDING; i++) {
		if (pmclog_buildid_pending[i].mod != mod)
			continue;
		*id = pmclog_buildid_pending[i].id;
		pmclog_buildid_pending[i].mod = NULL;
		found = id->size != 0;
		break;
	}
	raw_spin_unlock_irqrestore(&pmclog_buildid_lock, flags);
	return found;
}

/* Module init.  Without the kprobe, modules are logged without build-ids. */
void pmclog_buildid_init(void)
{
	int ret = register_kprobe(&pmclog_buildid_kp);

	if (ret) {
		pr_info("no kprobe on module_finalize() (%d): modules loaded while a log runs get no BUILDID\n",
			ret);
		return;
	}
	pmclog_buildid_kp_on = true;
}

void pmclog_buildid_exit(void)
{
	if (pmclog_buildid_kp_on)
		unregister_kprobe(&pmclog_buildid_kp);
	pmclog_buildid_kp_on = false;
}
