/*
 * meta.c - the append-only metadata stream p<pid>-<gen>.meta (format.h).
 *
 * Records are appended under the leaf lock (lock.c) the moment the
 * thing they describe exists, so the file is complete whenever the process
 * dies.
 *
 * The file is 0600 and the descriptor is kept (files.c). A program that
 * drops privileges and then closes every descriptor cannot reopen it
 * (root's file): the stream then goes on in a continuation file,
 * p<pid>-<gen>-c<k>.meta, which starts with a copy of the header (the
 * reader checks it is the same, which no one who cannot read the first
 * file can forge) and holds the records that follow. A write that fails
 * (a full disk) ends the stream: a record after a torn one would be
 * misread.
 *
 * A forked child starts its own file with the objects and entries it
 * inherited: a reference to its parent's file and the length it had at
 * the fork (SC_M_PARENT, format.h), which the reader follows. A copy of
 * the records cost each child of a shell a read and a write of the
 * shell's tens of KB (~20 us a child of bash).
 *
 * A scan of the loaded objects (start-up, dlopen) describes hundreds of
 * entries at once, too many for one write(2) and one fstat(2), to check
 * the descriptor, each. Between
 * sc_meta_batch(true) and sc_meta_batch(false), called by a scan under the
 * runtime lock, records are held in a buffer and written 8 KB at a time.
 * Other threads may run meanwhile and bind imports of objects patched
 * earlier; their SC_M_BIND records join the batch (the reader takes
 * records in any order). A fatal signal inside a scan writes what is held
 * before its END record.
 *
 * Past its first few records outside a batch (MAP_AFTER: a short image
 * writes fewer), an image maps its file (MAP_SHARED, room reserved with
 * fallocate ahead of the records) and copies each record into the
 * mapping instead of writing it: no system call per record (a BIND at
 * every import's first call), and the pages are the page cache's from
 * the store, so a SIGKILL loses no record that was complete. A record is
 * stored as padding first (type 0, its length), then its payload, its
 * type last: a process killed inside a store leaves a record the reader
 * skips, and the rest of the room is zeros, 8-byte padding records (a
 * record `scaler record` appends after the image's end lands past them),
 * until the image's END record gives the room back (trim).
 * The mapping needs no descriptor, so a program that closes ours changes
 * nothing until the room is used up; growing it checks the descriptor as
 * a write does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

SC_HIDDEN uint32_t sc_gen;
static int meta_fd = -1;
static char meta_name[SC_NAME_MAX]; /* the file written now, in the directory */
static uint32_t meta_cont;      /* its continuation number, 0 for the first */
static dev_t meta_dev;
static ino_t meta_ino;
static struct sc_meta_header meta_hdr;
static uint64_t file_len;       /* bytes in the file: what a child copies */
/* a fork child without a file of its own (its open failed): what its
 * children refer to instead, its own parent's reference (pid 0: none) */
static bool no_file;
static struct sc_m_parent no_file_parent;
/* records of a batch not yet written (only start-up and dlopen batch);
 * its two pages stay: giving them back after each batch cost every
 * process an madvise and a TLB flush at start-up */
static char held[8192] __attribute__((aligned(4096))) SC_LARGE_BSS;
/* where a batch holds them: held, or while a fork child's handler runs
 * a buffer on its stack (sc_meta_reopen_child): the child would copy
 * held's page from its parent's to write a few hundred bytes */
static char *hold = held;
static size_t hold_cap = sizeof(held);
static size_t held_len;
static int batch;               /* > 0: hold records */

/* The file's mapping (see the top): address space for this much of it */
#define MAP_RESERVE ((size_t)256 << 20)
#define MAP_AFTER 16u           /* records written before an image maps */
#define MAP_GROW 16384u         /* room added at least, at each grow */
static char *map;               /* this file mapped from offset 0, or NULL */
static char *map_parent;        /* a fork child's copy of its parent's */
static uint64_t map_room;       /* the file's size: mapped bytes that exist */
static uint32_t unmapped_puts;
static bool map_never;          /* the file system cannot, or the room ran out */

/* writev until done; advances iov */
static int writev_all(int fd, struct iovec *iov, int n)
{
	for (;;) {
		while (n && !iov->iov_len)
			iov++, n--;
		if (!n)
			break;
		ssize_t w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = ENOSPC;
		if (w <= 0)
			return -1;
		for (; n && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A new file, p<pid>-<gen>.meta for the first gen from `from` whose name
 * is free (a new image), or the next continuation of this one (cont). */
static int open_new(bool cont, uint32_t from, uint32_t pid)
{
	for (uint32_t k = from; k < from + 10000; k++) {
		if (cont)
			sc_file_name(meta_name, pid, sc_gen, "-c", meta_cont + 1 + k, ".meta");
		else
			sc_file_name(meta_name, pid, k, NULL, 0, ".meta");
		int fd = sc_file_create(meta_name, O_RDWR | O_APPEND, &meta_dev, &meta_ino);
		if (fd >= 0) {
			if (cont)
				meta_cont += 1 + k;
			else {
				sc_gen = k;
				meta_cont = 0;
			}
			return fd;
		}
		if (errno != EEXIST) {
			sc_warn("cannot create %s/%s: %s", sc_dir, meta_name, strerror(errno));
			return -1;
		}
	}
	return -1;
}

/* The image's file, of process pid (the caller's); gens below first_gen
 * are known taken (an earlier image of this pid, inherit.c). */
int sc_meta_open(uint32_t pid, uint32_t first_gen)
{
	meta_fd = open_new(false, first_gen, pid);
	if (meta_fd < 0)
		return -1;
	memcpy(meta_hdr.magic, SC_META_MAGIC, 8);
	meta_hdr.version = SC_FORMAT_VERSION;
	meta_hdr.header_size = sizeof(meta_hdr);
	meta_hdr.pid = pid;
	meta_hdr.ppid = (uint32_t)getppid();
	meta_hdr.gen = sc_gen;
	meta_hdr.timing_mode = (uint32_t)sc_timing_mode;
	meta_hdr.start_real_ns = sc_clock_ns(CLOCK_REALTIME);
	return 0;
}

/* n bytes to the file, or the stream ends here (said once). */
static void write_or_end(struct iovec *iov, int n, size_t total)
{
	if (meta_fd < 0)
		return;
	if (writev_all(meta_fd, iov, n) == 0) {
		file_len += total;
		return;
	}
	int e = errno;
	if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		sc_file_full(meta_name, e);
	else
		sc_warn("cannot write %s/%s: %s; this process's profile ends here", sc_dir,
			meta_name, strerror(e));
	close(meta_fd);
	meta_fd = -1;
}

static void write_all(const void *p, size_t n)
{
	struct iovec iov = {(void *)p, n};
	write_or_end(&iov, 1, n);
}

/* Detached: the stream ends (nothing is written after its END record). */
void sc_meta_close(void)
{
	if (meta_fd >= 0)
		close(meta_fd);
	meta_fd = -1;
	if (map)
		munmap(map, MAP_RESERVE);
	map = NULL;
}

/* Header fields known only after calibration; written once, first. */
void sc_meta_set_clock(uint64_t tsc, uint64_t mono, uint64_t hz, uint64_t overhead);
SC_HIDDEN void sc_meta_set_clock(uint64_t tsc, uint64_t mono, uint64_t hz, uint64_t overhead)
{
	meta_hdr.start_tsc = tsc;
	meta_hdr.start_mono_ns = mono;
	meta_hdr.tsc_hz = hz;
	meta_hdr.overhead_ticks = overhead;
	write_all(&meta_hdr, sizeof(meta_hdr));
}

/* Our descriptor, reopened if the program closed it, or a continuation
 * file if it cannot be reopened (a privilege drop: the file is 0600). */
static void check_fd(void)
{
	if (meta_fd < 0)
		return;
	int fd = sc_file_still(meta_fd, meta_name, meta_dev, meta_ino, O_RDWR | O_APPEND);
	if (fd >= 0) {
		meta_fd = fd;
		return;
	}
	/* the old file keeps its records: the new one is written, then
	 * mapped as the first was */
	if (map)
		munmap(map, MAP_RESERVE);
	map = NULL;
	map_room = 0;
	unmapped_puts = 0;
	meta_fd = open_new(true, 0, (uint32_t)getpid());
	file_len = 0;
	write_all(&meta_hdr, sizeof(meta_hdr));
}

/*
 * Whether n more bytes can go through the mapping, made or grown here.
 * Not while records are still written to the file's end: until the
 * image's MAP_AFTER-th record outside a batch, and never once the stream
 * has ended (meta_fd -1) or map_never is set.
 */
static bool map_ready(size_t n)
{
	/* a raw fork's child still on its parent's state never stores where
	 * its parent does (sc_meta_add makes its state first, or writes
	 * nothing) */
	if (meta_fd < 0 || !sc_rawfork_own())
		return false;
	if (map && file_len + n <= map_room)
		return true;
	if (map_never || (!map && ++unmapped_puts <= MAP_AFTER))
		return false;
	check_fd();             /* may start a continuation file (map NULL then) */
	if (meta_fd < 0)
		return false;
	uint64_t grow = file_len / 2 > MAP_GROW ? file_len / 2 : MAP_GROW;
	uint64_t want = (file_len + n + grow + 4095) & ~(uint64_t)4095;
	if (want > MAP_RESERVE) {
		/* full: writes go on at the end, past the room's zeros */
		if (map)
			file_len = map_room;
		map_never = true;
		return false;
	}
	if (fallocate(meta_fd, 0, (off_t)map_room, (off_t)(want - map_room)) != 0) {
		int e = errno;
		if (map && (e == ENOSPC || e == EDQUOT || e == EFBIG)) {
			/* records through the mapping up to here, none after */
			sc_file_full(meta_name, e);
			close(meta_fd);
			meta_fd = -1;
			return false;
		}
		if (map)
			file_len = map_room;
		map_never = true;       /* no fallocate (EOPNOTSUPP): writes */
		return false;
	}
	if (!map) {
		/* a fork child maps over its parent's mapping: one call */
		void *m = mmap(map_parent, MAP_RESERVE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | (map_parent ? MAP_FIXED : 0), meta_fd, 0);
		if (m == MAP_FAILED) {
			/* the file is longer than its records: they go on
			 * after the zeros */
			map_room = want;
			file_len = want;
			map_never = true;
			return false;
		}
		map = m;
		map_parent = NULL;
	}
	map_room = want;
	return true;
}

/* Stores one record (iov[0] its struct sc_meta_rec) at the end of the
 * mapped records, as padding first and its type last (see the top). Its
 * room is taken before it is written: a fatal signal's END record, which
 * takes no lock, goes after a record it interrupted. */
static void map_store(const struct iovec *iov, int n, size_t total)
{
	char *at = map + file_len;
	file_len += total;
	struct sc_meta_rec r;
	memcpy(&r, iov[0].iov_base, sizeof(r));
	struct sc_meta_rec pad = {.type = 0, .len = r.len};
	memcpy(at, &pad, sizeof(pad));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	size_t o = sizeof(r);
	memcpy(at + o, (const char *)iov[0].iov_base + o, iov[0].iov_len - o);
	o = iov[0].iov_len;
	for (int i = 1; i < n; i++) {
		memcpy(at + o, iov[i].iov_base, iov[i].iov_len);
		o += iov[i].iov_len;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n((uint32_t *)at, r.type, __ATOMIC_RELAXED);
}

/*
 * The image ended (exit, or an exec, which may fail): the room past the
 * records is given back and the mapping dropped; a record after this (a
 * later destructor's first call, a failed exec's next calls) is written.
 * Needs the descriptor, to truncate: without it the room stays.
 */
static void trim(void)
{
	if (!map || meta_fd < 0)
		return;
	int fd = sc_file_still(meta_fd, meta_name, meta_dev, meta_ino, O_RDWR | O_APPEND);
	if (fd < 0)
		return;
	meta_fd = fd;
	munmap(map, MAP_RESERVE);
	map = NULL;
	map_never = true;
	if (ftruncate(meta_fd, (off_t)file_len) != 0)
		file_len = map_room;    /* writes go on past the zeros */
	map_room = 0;
}

/* Appends n bytes of whole records to the file. The descriptor is
 * checked here, where it is written through, not for every record (a
 * scan's batch holds hundreds). */
static void put(const void *p, size_t n)
{
	if (!map_ready(n)) {
		check_fd();
		write_all(p, n);
		return;
	}
	for (size_t o = 0; o + sizeof(struct sc_meta_rec) <= n;) {
		struct sc_meta_rec r;
		memcpy(&r, (const char *)p + o, sizeof(r));
		size_t len = sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
		struct iovec iov = {(char *)p + o, len};
		map_store(&iov, 1, len);
		o += len;
	}
}

/* Writes the records held by a batch. */
static void flush_held(void)
{
	if (held_len)
		put(hold, held_len);
	held_len = 0;
}

/* Hold records (on) or write them (off). */
void sc_meta_batch(bool on)
{
	sc_leaf_lock();
	if (on)
		batch++;
	else if (batch > 0 && --batch == 0) {
		flush_held();
		hold = held;
		hold_cap = sizeof(held);
	}
	sc_leaf_unlock();
}

/*
 * Appends one record: fixed part a (alen bytes) then str with its NUL. A
 * record is at most SC_META_MAX bytes (a batch's buffer holds any one
 * whole): a longer string is cut, and so is a longer a,
 * which only a byte string can be (callers cut theirs with a mark: the
 * command line, init.c). The record is put
 * together in place (in the batch buffer, or a small buffer on the stack)
 * and only a long one is written in pieces: this runs on the first call of
 * every thread, and an 8 KB buffer on the stack would cost each thread
 * two more pages of stack.
 */
/* strlen without libc's, as sc_copy: a fork child's first call of it
 * maps one more page of libc's code (a page fault, ~2 us) */
static size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

void sc_meta_add(uint32_t type, const void *a, size_t alen, const char *str)
{
	if (alen > SC_META_ROOM - 1)
		alen = SC_META_ROOM - 1;
	size_t slen = str ? str_len(str) + 1 : 0;
	if (alen + slen > SC_META_ROOM)
		slen = SC_META_ROOM - alen;
	size_t len = alen + slen;
	struct sc_meta_rec r = {.type = type, .len = (uint32_t)len};
	size_t total = sizeof(r) + ((len + 7) & ~(size_t)7);
	static const char zeros[8];
	const struct { const void *p; size_t n; } part[4] = {
		{&r, sizeof(r)}, {a, alen}, {str, slen ? slen - 1 : 0},
		/* the string's NUL (it may have been cut) and the padding */
		{zeros, total - sizeof(r) - len + (slen ? 1 : 0)},
	};
	char small[512];
	/* from a fatal-signal handler: the lock may be held by the very code
	 * we interrupted; write(2) needs no lock. What a scan held goes
	 * first. */
	bool sig = type == SC_M_END && sc_in_signal;
	/* a raw fork's child not yet adopted would append to its parent's
	 * file (rawfork.c), describing an entry index its parent gives too,
	 * and the parent, which does not know the bytes are there, would
	 * store its own records over them once it maps the file: it adopts
	 * first, or, holding a lock, writes nothing */
	if (!sig && !sc_rawfork_adopt())
		return;
	if (!sig)
		sc_leaf_lock();
	/* a new uid is declared before the change, while this file can
	 * still be reopened: it is never held for later */
	bool keep = batch && !sig && type != SC_M_UID;
	if (sig || type == SC_M_UID || (keep && held_len + total > hold_cap))
		flush_held();
	keep = keep && total <= hold_cap;       /* (held takes any record) */
	if (keep || total <= sizeof(small)) {
		char *dst = keep ? hold + held_len : small;
		size_t at = 0;
		for (int i = 0; i < 4; i++) {
			sc_copy(dst + at, part[i].p, part[i].n);
			at += part[i].n;
		}
		if (keep)
			held_len += total;
		else
			put(dst, total);
	} else {
		/* long: one writev, so that nothing lands inside the record */
		struct iovec iov[4];
		for (int i = 0; i < 4; i++)
			iov[i] = (struct iovec){(void *)part[i].p, part[i].n};
		if (map_ready(total))
			map_store(iov, 4, total);
		else {
			check_fd();
			write_or_end(iov, 4, total);
		}
	}
	if (type == SC_M_END && !sig)
		trim();
	if (!sig)
		sc_leaf_unlock();
}

/* In a forked child: a new file for the new pid, holding what the parent
 * had described (objects, entries, command line) but not its threads: a
 * reference to the parent's file as it was at the fork (SC_M_PARENT).
 * Its first records are held in buf (cap bytes, on the fork handler's
 * stack) until the handler ends the batch (init.c). */
void sc_meta_reopen_child(char *buf, size_t cap)
{
	/* the nearest ancestor's file (this image's, unless it has none);
	 * none in a continuation, whose name and length are not the file's */
	struct sc_m_parent parent = {.pid = meta_hdr.pid, .gen = sc_gen, .end = file_len};
	if (no_file)
		parent = no_file_parent;
	else if (meta_cont)
		parent.pid = 0;
	/* (a stream that ended, on a full disk, has been said already) */
	if (meta_cont)
		sc_warn("%s/%s is a continuation; a forked child's profile lacks its objects",
			sc_dir, meta_name);
	/* the parent's descriptor, if it is still the file: never one the
	 * program opened in its place */
	sc_file_close_same(meta_fd, meta_dev, meta_ino);
	uint32_t pid = (uint32_t)getpid();
	meta_fd = open_new(false, 0, pid);
	held_len = 0;
	batch = 0;
	hold = held;
	hold_cap = sizeof(held);
	file_len = 0;
	/* the parent's mapping is never written here: the child's own, if
	 * it makes one, replaces it */
	if (map)
		map_parent = map;
	map = NULL;
	map_room = 0;
	unmapped_puts = 0;
	map_never = false;
	/* the image is this process's, file or not: declare() (uids.c)
	 * withdraws the rings it mapped only in the image's own process */
	meta_hdr.pid = pid;
	meta_hdr.ppid = (uint32_t)getppid();
	no_file = meta_fd < 0;
	no_file_parent = parent;
	if (no_file)
		return;
	meta_hdr.gen = sc_gen;
	/* the child's life starts now, not at its parent's start: its wall
	 * time is end - start (a postgres backend forked after an hour is not
	 * an hour old) */
	meta_hdr.start_real_ns = sc_clock_ns(CLOCK_REALTIME);
	meta_hdr.start_tsc = sc_rdtsc();
	meta_hdr.start_mono_ns = sc_clock_ns(CLOCK_MONOTONIC);
	/* the header and the reference, held with the records the fork
	 * handler writes next (its thread, the control state) for one write
	 * at its end (init.c): a child killed before has an empty file, and
	 * nothing counted yet */
	struct {
		struct sc_meta_header h;
		struct sc_meta_rec r;
		struct sc_m_parent p;
	} head = {meta_hdr, {SC_M_PARENT, sizeof(parent)}, parent};
	_Static_assert(sizeof(head) == sizeof(meta_hdr) + sizeof(struct sc_meta_rec) + sizeof(parent),
		       "no padding");
	held_len = parent.pid ? sizeof(head) : sizeof(meta_hdr);
	if (cap >= held_len) {
		hold = buf;
		hold_cap = cap;
	}
	memcpy(hold, &head, held_len);
	batch = 1;
}

/* Whether this image has its meta file (a fork child's may have none:
 * a full disk). */
bool sc_meta_has_file(void)
{
	return meta_fd >= 0;
}

/* The pid this image's meta file belongs to. */
uint32_t sc_meta_pid(void)
{
	return meta_hdr.pid;
}

/*
 * Before a seccomp filter (seccomp.c): the file is mapped now, with room
 * for MAP_GROW bytes or more of records, so that the records that follow
 * (an import's first call, a thread's start) take no system call, which
 * the filter may punish, until that room is used up.
 */
void sc_meta_map_now(void)
{
	if (!sc_rawfork_adopt())
		return;
	sc_leaf_lock();
	if (!map && unmapped_puts < MAP_AFTER)
		unmapped_puts = MAP_AFTER;
	map_ready(MAP_GROW / 2);
	sc_leaf_unlock();
}
