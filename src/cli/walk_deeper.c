/*
 * walk_deeper.c - `scaler walk --deeper -- CMD` (walk_deeper.h): CrossWalk
 * refines its instrumentation as it walks; here each round is a whole
 * `scaler record` of CMD, walked, and the next round patches (--functions)
 * the callees of where the walk ended:
 *
 *   the walk ends at       the next round also patches
 *   a component's own code the functions its main calls or points at
 *   an API of library D    the functions of D that API calls, and the
 *                          functions the caller points at (callbacks D
 *                          may be spending its time in)
 *   a patched function     the functions it calls or points at
 *
 * Rounds stop when the walk ends where the previous one did (the
 * threshold no longer splits the time) or above it (what was patched made
 * the nesting worse to estimate: the previous path stands), when there is
 * nothing new to patch, or after --rounds. Round 1 records into DIR, round N into DIR.N.
 * The command's standard output goes to our standard error, so that ours
 * carries the walks alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_functions.h"
#include "walk.h"
#include "walk_deeper.h"

#define MAX_CALLEES 64
#define SPEC_MAX 4000

int cmd_record(int argc, char **argv);

/* Records cmd into dir with --functions=spec (none when empty); the
 * recorder's exit status (the command's), or -1. */
static int record(const char *dir, const char *spec, char **cmd)
{
	size_t n = 0;
	while (cmd[n])
		n++;
	char **argv = calloc(n + 6, sizeof(*argv));
	char *fn = malloc(strlen(spec) + 16);
	int status, k = 0;
	pid_t pid;

	if (!argv || !fn) {
		free(argv);
		free(fn);
		return -1;
	}
	sprintf(fn, "--functions=%s", spec);
	argv[k++] = "record";
	argv[k++] = "-o";
	argv[k++] = (char *)dir;
	if (*spec)
		argv[k++] = fn;
	argv[k++] = "--";
	memcpy(argv + k, cmd, (n + 1) * sizeof(*argv));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(2, 1);
		_exit(cmd_record(k + (int)n, argv));
	}
	free(argv);
	free(fn);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Adds comp:name to spec unless there; 1 if added. */
static int add_pattern(char *spec, const char *comp, const char *name)
{
	char pat[600];
	size_t len = strlen(spec);

	/* the runtime never patches libc, which it runs on (functions.c) */
	if (!strncmp(comp, "libc.so", 7))
		return 0;
	snprintf(pat, sizeof(pat), "%s:%s", comp, name);
	for (const char *p = spec; (p = strstr(p, pat)); p++)
		if ((p == spec || p[-1] == ',') && (p[strlen(pat)] == ',' || !p[strlen(pat)]))
			return 0;
	if (len + strlen(pat) + 2 > SPEC_MAX || strpbrk(name, ",:*?["))
		return 0;
	sprintf(spec + len, "%s%s", len ? "," : "", pat);
	return 1;
}

/* The file of the component called name on path p, "" if none. */
static const char *file_of(const struct walk_path *p, const char *name)
{
	for (size_t i = p->n; i-- > 0;)
		if (!strcmp(p->step[i].component, name) && p->step[i].file[0])
			return p->step[i].file;
	return "";
}

/* Adds the callees of the end of path p to spec; how many were new, with
 * the reason in why when none. */
static size_t refine(const struct walk_path *p, char *spec, char *why, size_t whylen)
{
	const struct walk_step *e = &p->step[p->n - 1];
	char *callees[MAX_CALLEES];
	const char *root = e->name;
	size_t n, added = 0;

	if (e->level == WALK_COMPONENT)
		root = e->root[0] ? e->root : "main";
	else if (e->symbol[0])
		root = e->symbol;
	else if (e->level != WALK_API && e->level != WALK_FUNCTION) {
		snprintf(why, whylen, "the walk ends at a %s, not in user code", walk_level_name(e->level));
		return 0;
	}
	if (!e->file[0]) {
		snprintf(why, whylen, "the file of %s is not known", e->component);
		return 0;
	}
	n = walk_callees(e->file, &root, 1, callees, MAX_CALLEES, why, whylen);
	for (size_t i = 0; i < n; i++) {
		added += add_pattern(spec, e->component, callees[i]);
		free(callees[i]);
	}
	if (e->level == WALK_API && e->caller[0] && file_of(p, e->caller)[0]) {
		n = walk_callees(file_of(p, e->caller), NULL, 0, callees, MAX_CALLEES, why, whylen);
		for (size_t i = 0; i < n; i++) {
			added += add_pattern(spec, e->caller, callees[i]);
			free(callees[i]);
		}
	}
	if (!added && !why[0])
		snprintf(why, whylen, "%s() calls no function that is not patched already: the "
			 "time splits no further", e->level == WALK_COMPONENT ? root : e->name);
	return added;
}

static int same_end(const struct walk_path *a, const struct walk_path *b)
{
	return a->n && b->n && a->n == b->n &&
	       a->step[a->n - 1].level == b->step[b->n - 1].level &&
	       !strcmp(a->step[a->n - 1].name, b->step[b->n - 1].name);
}

int walk_deeper(const struct walk_opts *o, char **cmd, FILE *out)
{
	struct walk *w = calloc(2, sizeof(*w)), *prev = w + 1;
	char spec[SPEC_MAX + 1] = "", dir[4096], err[1024], why[1100];
	int status = 0;

	if (!w) {
		perror("scaler walk");
		return 1;
	}
	for (unsigned round = 1; round <= o->rounds; round++) {
		if (round == 1)
			snprintf(dir, sizeof(dir), "%s", o->dir);
		else
			snprintf(dir, sizeof(dir), "%s.%u", o->dir, round);
		int rc = record(dir, spec, cmd);
		if (rc < 0 || walk_dir(dir, o->threshold, o->wall, w, err, sizeof(err)) < 0) {
			fprintf(stderr, "scaler: walk: round %u: %s\n", round,
				rc < 0 ? strerror(errno) : err);
			status = 1;
			break;
		}
		if (rc)
			fprintf(stderr, "scaler: walk: round %u: %s exited with status %d\n", round,
				cmd[0], rc);
		if (o->json) {
			walk_json(out, w);
		} else {
			fprintf(out, "%sround %u: %s%s%s\n", round > 1 ? "\n" : "", round, dir,
				*spec ? ", --functions=" : "", spec);
			walk_text(out, w);
		}
		why[0] = 0;
		if (!w->path.n)
			snprintf(why, sizeof(why), "the walk found no path");
		else if (round > 1 && same_end(&w->path, &prev->path) &&
			 w->path.step[w->path.n - 1].untimed)
			snprintf(why, sizeof(why), "the walk ends where round %u's did: the "
				 "functions patched in %s are called from their own component, "
				 "which counts them without timing them", round - 1,
				 w->path.step[w->path.n - 1].component);
		else if (round > 1 && w->path.n < prev->path.n)
			snprintf(why, sizeof(why), "the walk ends above round %u's: what round %u "
				 "patched moved time where the profile cannot place it; round %u's "
				 "path stands", round - 1, round, round - 1);
		else if (round > 1 && same_end(&w->path, &prev->path))
			snprintf(why, sizeof(why), "the walk ends where round %u's did: the "
				 "threshold no longer splits the time", round - 1);
		else if (round == o->rounds)
			snprintf(why, sizeof(why), "--rounds %u reached", o->rounds);
		else if (!refine(&w->path, spec, why, sizeof(why)) ||
			 record_functions_check(spec, err, sizeof(err)) != 0) {
			if (!why[0])
				snprintf(why, sizeof(why), "%s", err);
		} else {
			why[0] = 0;
		}
		if (why[0]) {
			if (o->json)
				fprintf(stderr, "scaler: walk: stopped after round %u: %s\n", round, why);
			else
				fprintf(out, "\nstopped after round %u: %s\n", round, why);
			break;
		}
		*prev = *w;
	}
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "scaler: walk: write error on stdout: %s\n", strerror(errno));
		status = 1;
	}
	free(w);
	return status;
}
