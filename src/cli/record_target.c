/*
 * record_target.c - whether the runtime will be loaded into a program,
 * decided from its file before it runs, so that `scaler record` says so
 * at once instead of leaving a profile directory with nothing in it:
 *  - an ELF executable without PT_INTERP (static or static-pie) has no
 *    dynamic loader to honour LD_PRELOAD;
 *  - a setuid or setgid program (or one with file capabilities) run by a
 *    user it changes identity for runs in secure-execution mode
 *    (AT_SECURE), where the loader drops LD_PRELOAD entries with a slash
 *    and ours always has one. Not so on a nosuid mount, where the kernel
 *    ignores the bits.
 * A script is run by its interpreter, which gets LD_PRELOAD: not judged.
 */
#include "record_target.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/* 1 if fd is a 64-bit ELF file without a PT_INTERP program header, 0 if it
 * has one or is not such a file. */
static int static_elf(int fd)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	return 1;
}

/* 1 if running fd's program changes the caller's identity (AT_SECURE). */
static int secure_exec(int fd, const char *path)
{
	struct stat st;
	struct statvfs vfs;
	if (fstat(fd, &st) != 0 || (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return 0;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		return 1;
	if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		return 1;
	return getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0;
}

int record_target_unprofiled(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int r = 0;
	if (static_elf(fd)) {
		snprintf(why, n, "statically linked");
		r = 1;
	} else if (secure_exec(fd, path)) {
		snprintf(why, n, "setuid, setgid or with capabilities: the loader ignores "
			 "LD_PRELOAD for it");
		r = 1;
	}
	close(fd);
	return r;
}
