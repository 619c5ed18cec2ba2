/*
 * profdir.c - the profile directories scaler makes (`record -o`, `ctl
 * snapshot -o`): which names are a profile's, whether a directory is one
 * (only such a directory is ever moved aside or removed), and making a
 * new one, the previous kept as DIR.old.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "profdir.h"

/* one "scaler: ..." line on stderr; returns the exit status 2 */
#define fail(...) cli_fail(2, NULL, __VA_ARGS__)

/* "g<hex>.use": the runtime's cache of what it read of an object */
static int is_use_cache(const char *name)
{
	if (name[0] != 'g')
		return 0;
	size_t n = strspn(name + 1, "0123456789abcdef");
	return n >= 16 && !strcmp(name + 1 + n, ".use");
}

/* A name the runtime or scaler record gives its files (format.h), or the
 * marker. */
bool profdir_name(const char *name)
{
	unsigned pid, gen, seq;
	char tail[8];
	int end = 0;
	if (!strcmp(name, SC_PROFILE_MARKER) || !strcmp(name, SC_SERIES_FILE) ||
	    !strcmp(name, SC_KSYMS_FILE) || is_use_cache(name))
		return true;
	if (sscanf(name, "p%u-%u.met%1[a]%n", &pid, &gen, tail, &end) == 3 && end && !name[end])
		return true;
	end = 0;
	if (sscanf(name, "p%u-%u-c%u.met%1[a]%n", &pid, &gen, &seq, tail, &end) == 4 && end &&
	    !name[end])
		return true;
	end = 0;
	if (sscanf(name, "p%u-attach.fif%1[o]%n", &pid, tail, &end) == 2 && end && !name[end])
		return true;            /* scaler record -p's, while attached */
	end = 0;
	/* .kst, and .kso: kernel stacks on and off the CPU */
	if (sscanf(name, "p%u-%u-t%u.ks%1[to]%n", &pid, &gen, &seq, tail, &end) == 4 && end &&
	    !name[end])
		return true;
	end = 0;
	if (sscanf(name, "p%u-%u-t%u.th%1[r]%n", &pid, &gen, &seq, tail, &end) == 4 && end &&
	    !name[end])
		return true;
	end = 0;
	return sscanf(name, "p%u-%u-t%u.arg%1[s]%n", &pid, &gen, &seq, tail, &end) == 4 && end &&
	       !name[end];
}

/*
 * A profile directory holds its marker and nothing but the runtime's
 * files (format.h). Only such a directory is ever moved aside or removed:
 * `-o src` or `-o /media` given by mistake must not cost anyone their
 * files, even an empty directory. dfd is the directory, opened without
 * following a link. Returns 1 if it is one, 0 if not (*what names the
 * first thing that is not, or the missing marker), -1 if it cannot be
 * read.
 */
static int is_profile_dir(int dfd, char *what, size_t n)
{
	DIR *d = fdopendir(dup(dfd));
	if (!d)
		return -1;
	rewinddir(d);           /* the offset is dfd's */
	struct dirent *e;
	int ok = 1, marked = 0;
	while (ok && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		marked |= !strcmp(e->d_name, SC_PROFILE_MARKER);
		if (profdir_name(e->d_name))
			continue;
		snprintf(what, n, "it holds %.200s", e->d_name);
		ok = 0;
	}
	closedir(d);
	if (ok && !marked)
		snprintf(what, n, "no %s: scaler record did not make it", SC_PROFILE_MARKER);
	return ok && marked;
}

/*
 * dir may be replaced: absent (*fd -1), or a profile directory (*fd its
 * descriptor, which the caller closes); else says why not. Everything
 * done to it afterwards goes through that descriptor: whoever may rename
 * the path meanwhile (another user's directory in /tmp) cannot make it
 * point at another directory.
 */
static int replaceable(const char *dir, int *fd)
{
	struct stat st;
	char what[256];
	*fd = -1;
	if (lstat(dir, &st) != 0)
		return errno == ENOENT ? 0 : fail("cannot use %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail("%s exists and is not a profile directory; not touching it", dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r = dfd >= 0 ? is_profile_dir(dfd, what, sizeof(what)) : -1;
	if (r < 0) {
		r = fail("cannot read %s: %s", dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	if (!r) {
		close(dfd);
		return fail("%s exists and is not a scaler profile (%s); not touching it",
			    dir, what);
	}
	*fd = dfd;
	return 0;
}

/* Removes the profile files of dfd (is_profile_dir said it is one),
 * then dir itself if it is empty. */
static int remove_profile(int dfd, const char *dir)
{
	DIR *d = fdopendir(dup(dfd));
	if (!d)
		return -1;
	rewinddir(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (profdir_name(e->d_name))
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
	return rmdir(dir);
}

/*
 * Like perf: a profile already at dir is kept as dir.old (the one before
 * it is removed), so one run back is never lost. Anything that is not a
 * profile is left alone and the record refused.
 */
int profdir_prepare(const char *dir, bool shared)
{
	struct stat st;
	if (lstat(dir, &st) == 0) {
		char old[PATH_MAX];
		snprintf(old, sizeof(old), "%s.old", dir);
		int dfd, ofd = -1;
		if (replaceable(dir, &dfd) || replaceable(old, &ofd)) {
			if (dfd >= 0)
				close(dfd);
			return 2;
		}
		close(dfd);
		int r = ofd >= 0 ? remove_profile(ofd, old) : 0;
		if (ofd >= 0)
			close(ofd);
		if (r != 0)
			return fail("cannot remove %s: %s", old, strerror(errno));
		if (rename(dir, old) != 0)
			return fail("cannot move %s aside: %s", dir, strerror(errno));
	}
	if (mkdir(dir, 0700) != 0)
		return fail("cannot create %s: %s", dir, strerror(errno));
	/* the marker first, while no one else can add a file */
	char marker[PATH_MAX];
	snprintf(marker, sizeof(marker), "%s/%s", dir, SC_PROFILE_MARKER);
	int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail("cannot write in %s: %s", dir, strerror(errno));
	static const char note[] = "a profile directory made by scaler record\n";
	if (write(fd, note, sizeof(note) - 1) != (ssize_t)sizeof(note) - 1) {
		close(fd);
		return fail("cannot write in %s: %s", dir, strerror(errno));
	}
	close(fd);
	/* Servers started as root drop privileges (memcached -u, nginx and
	 * postgres workers, ...) and then start threads and processes whose
	 * files they must create here: like /tmp, anyone may add a file, and
	 * only its owner may remove it. The runtime creates its files so that
	 * names planted meanwhile are skipped (files.c). */
	if (shared && chmod(dir, 01777) != 0)
		return fail("cannot set the mode of %s: %s", dir, strerror(errno));
	return 0;
}
