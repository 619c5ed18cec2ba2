/*
 * cmd_live.c - `scaler live`: watches a profile while its program runs.
 * Parses the options (its table below), finds the profile directory of a
 * process (-p: its SCALER_DIR), then either prints one snapshot (--once,
 * text or the report's JSON calls) or runs the full-screen view: every
 * interval a new snapshot (live_snap.c), the rows' growth since the last
 * one drawn as a table (live_view.c), keys to sort, switch views and pick
 * a process of the tree.
 *
 * The screen is drawn with plain ANSI (VT100) escapes on the alternate
 * screen, not curses: a table redrawn whole once a second needs no
 * optimised updates, and scaler gains no dependency on a curses library. The
 * terminal's mode is restored on every way out (q, ^C, SIGTERM, SIGHUP).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "live.h"
#include "procdir.h"
#include "report.h"
#include "xalloc.h"

enum { OPT_INTERVAL = 256, OPT_ONCE, OPT_FORMAT, OPT_SORT, OPT_VIEW };

static const struct cli_choice formats[] = {
	{ "text", "the table, rates since the program started" },
	{ "json", "the report's \"calls\" list (scaler report --format json) and the processes" },
};
static const struct cli_choice sorts[] = {
	[LSORT_RATE] = { "rate", "time per second over the last interval (key r)" },
	[LSORT_TOTAL] = { "total", "time since start (key t)" },
	[LSORT_P99] = { "p99", "99th percentile of a call's time (key 9)" },
	[LSORT_COUNT] = { "calls", "calls per second over the last interval (key n)" },
};
static const struct cli_choice views[] = {
	[VIEW_API] = { "api", "a row per caller, callee and API (key a)" },
	[VIEW_COMP] = { "component", "a row per calling and called component (key c)" },
};

#define NCHOICES(a) (sizeof(a) / sizeof((a)[0]))

static const char *format_choice(size_t i, const char **help)
{
	return cli_choice_at(formats, NCHOICES(formats), i, help);
}

static const char *sort_choice(size_t i, const char **help)
{
	return cli_choice_at(sorts, NCHOICES(sorts), i, help);
}

static const char *view_choice(size_t i, const char **help)
{
	return cli_choice_at(views, NCHOICES(views), i, help);
}

static const struct cli_opt live_opts[] = {
	{ 'p', "pid", required_argument, "PID", CLI_WORD, NULL, NULL,
	  "the process PID running under scaler record (or scaler record itself), "
	  "with its child processes; only its owner or root may watch it" },
	{ 'i', "input", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory to watch" },
	{ OPT_INTERVAL, "interval", required_argument, "S", CLI_WORD, NULL, "1",
	  "seconds between refreshes (0.05 to 3600)" },
	{ OPT_ONCE, "once", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "print one snapshot and exit (no terminal needed)" },
	{ OPT_FORMAT, "format", required_argument, "FMT", CLI_CHOICE, format_choice, "text",
	  "the output of --once:" },
	{ OPT_SORT, "sort", required_argument, "KEY", CLI_CHOICE, sort_choice, "rate",
	  "the order of the rows:" },
	{ OPT_VIEW, "view", required_argument, "VIEW", CLI_CHOICE, view_choice, "api",
	  "the rows:" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd live_cmd = {
	.name = "live",
	.synopsis = "[-p PID | -i DIR] [--interval S] [--once [--format FMT]]",
	.about = "Shows a profile while its program runs, like perf top: per caller, callee "
		 "and API (or per pair of components) the calls and time per second over the "
		 "last interval, and the calls, time and p99 since the start. Reading never "
		 "stops or slows the program: its counters are in shared memory.\n"
		 "keys: q quit, r t 9 n sort by rate, total, p99, calls/s, a c the API or "
		 "component view, p P the next or previous process of the tree.",
	.operands = CLI_NONE,
	.opts = live_opts,
};

struct opts {
	const char *input, *pid, *interval;
	int once, json;
	enum live_sort sort;
	enum live_view view;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c, k;

	optind = 0;
	while ((c = cli_getopt(&live_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case 'p': o->pid = optarg; break;
		case 'i': o->input = optarg; break;
		case OPT_INTERVAL: o->interval = optarg; break;
		case OPT_ONCE: o->once = 1; break;
		case OPT_FORMAT:
		case OPT_SORT:
		case OPT_VIEW:
			if ((k = cli_choice(&live_cmd, c, optarg)) < 0)
				return CLI_USAGE;
			if (c == OPT_FORMAT)
				o->json = k == 1;
			else if (c == OPT_SORT)
				o->sort = (enum live_sort)k;
			else
				o->view = (enum live_view)k;
			break;
		default:
			return c;
		}
	}
	if (optind < argc)
		return cli_usage_error(&live_cmd, "unexpected argument '%s'", argv[optind]), CLI_USAGE;
	if (o->pid && o->input)
		return cli_usage_error(&live_cmd, "-p and -i both name the profile: give one"),
		       CLI_USAGE;
	if (o->json && !o->once)
		return cli_usage_error(&live_cmd, "--format json is for --once"), CLI_USAGE;
	return 0;
}

/* ---- --once ------------------------------------------------------------------ */

static void once_json(struct live_snap *s, const struct live_sel *sel, int64_t elapsed_ns)
{
	struct sc_json j;
	struct sc_call *owned;
	size_t n;
	const struct sc_call *calls = live_calls(s, sel, &n, &owned);

	sc_json_init(&j, stdout);
	sc_json_begin_object(&j);
	sc_json_key(&j, "format");
	sc_json_string(&j, "scaler-live");
	sc_json_key(&j, "version");
	sc_json_int(&j, 1);
	sc_json_key(&j, "dir");
	sc_json_string(&j, s->p.dir);
	sc_json_key(&j, "elapsed_ns");
	sc_json_int(&j, elapsed_ns);
	sc_json_key(&j, "processes");
	sc_json_begin_array(&j);
	for (size_t i = 0; i < s->p.nimages; i++) {
		const struct sc_image *im = &s->p.images[i];

		if (!live_sel_has(&s->p, sel, im))
			continue;
		sc_json_begin_object(&j);
		sc_json_key(&j, "pid");
		sc_json_uint(&j, im->pid);
		sc_json_key(&j, "ppid");
		sc_json_uint(&j, im->ppid);
		sc_json_key(&j, "gen");
		sc_json_uint(&j, im->gen);
		sc_json_key(&j, "running");
		sc_json_bool(&j, im->incomplete);
		sc_json_end_object(&j);
	}
	sc_json_end_array(&j);
	sc_json_key(&j, "calls");
	sc_json_begin_array(&j);
	for (size_t i = 0; i < n; i++)
		report_json_call(&j, &calls[i]);
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	fputc('\n', stdout);
	free(owned);
}

/* ---- the screen ---------------------------------------------------------------- */

static volatile sig_atomic_t got_quit, got_winch;
static struct termios saved_tty;
static int tty_raw;

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		got_winch = 1;
	else
		got_quit = 1;
}

static void screen_enter(void)
{
	struct sigaction sa;
	struct termios t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;      /* no SA_RESTART: poll returns EINTR */
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tty) == 0) {
		t = saved_tty;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		tty_raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	}
	/* the alternate screen, cursor hidden */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
}

static void screen_leave(void)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
}

static void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* What the view shows and how; the processes that can be picked. */
struct state {
	const char *dir;
	double interval;
	enum live_sort sort;
	enum live_view view;
	struct live_sel base;   /* all, or -p's tree */
	size_t pick;            /* 0: base, k: the k-th image of base */
	char status[256];       /* the last load error, shown until one works */
};

/* The selection picked: the base, or its pick-th image (wrapping). */
static struct live_sel picked(struct state *st, const struct sc_profile *p, char *label, size_t n)
{
	size_t k = 0;

	if (st->pick) {
		for (size_t i = 0; i < p->nimages; i++) {
			const struct sc_image *im = &p->images[i];

			if (!live_sel_has(p, &st->base, im) || ++k != st->pick)
				continue;
			char cmd[200];

			report_fmt_command(cmd, sizeof(cmd), im);
			snprintf(label, n, "%u%s%.0u %s", im->pid, im->gen ? "." : "", im->gen, cmd);
			return (struct live_sel){ SEL_IMAGE, im->pid, im->gen };
		}
		st->pick = 0;
	}
	if (st->base.kind == SEL_ALL)
		snprintf(label, n, "all");
	else
		snprintf(label, n, "%u and its children", st->base.pid);
	return st->base;
}

static size_t count_picks(const struct state *st, const struct sc_profile *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nimages; i++)
		k += live_sel_has(p, &st->base, &p->images[i]);
	return k;
}

/* A line of the screen: cut to the width, the rest of the row cleared. */
static void put_line(FILE *f, const char *s, int cols, int last)
{
	char buf[2048];

	report_fit(buf, sizeof(buf), s, cols);
	fprintf(f, "%s\033[K%s", buf, last ? "" : "\r\n");
}

static void draw(struct state *st, struct live_snap *cur, const struct live_snap *prev)
{
	static const char *const sort_names[] = { "rate", "total", "p99", "calls/s" };
	struct live_rows r;
	char label[256], line[1024], a[32], b[32], c[32], d[32], **lines;
	int rows, cols, used = 4;
	size_t n, room;
	struct live_sel sel = picked(st, &cur->p, label, sizeof(label));
	time_t now = time(NULL);
	struct tm tm;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);

	if (!f)
		return;
	term_size(&rows, &cols);
	live_rows_build(&r, cur, prev, &sel, st->view, st->sort);
	localtime_r(&now, &tm);
	fputs("\033[H", f);
	const struct sc_image *root = report_root_image(&cur->p);
	char cmd[256] = "";

	if (root)
		report_fmt_command(cmd, sizeof(cmd), root);
	snprintf(line, sizeof(line), "scaler live  %s  (%s)  every %g s  %02d:%02d:%02d", cmd,
		 st->dir, st->interval, tm.tm_hour, tm.tm_min, tm.tm_sec);
	put_line(f, line, cols, 0);
	report_fmt_count(a, sizeof(a), r.count);
	report_fmt_count(b, sizeof(b), r.dt_ns > 0 ? (uint64_t)((long double)r.dcount * 1e9L /
								 (long double)r.dt_ns) : 0);
	report_fmt_ns(c, sizeof(c), (long double)r.total_ns);
	report_fmt_ns(d, sizeof(d), r.dt_ns > 0 ? (long double)r.dns * 1e9L / (long double)r.dt_ns : 0);
	snprintf(line, sizeof(line), "processes %zu (%zu running)  calls %s (%s/s)  time %s (%s/s)",
		 r.nimages, r.nrunning, a, b, c, d);
	put_line(f, line, cols, 0);
	snprintf(line, sizeof(line), "view %s  sort %s  process %s%s%s",
		 st->view == VIEW_API ? "API" : "component", sort_names[st->sort], label,
		 st->status[0] ? "  | " : "", st->status);
	put_line(f, line, cols, 0);
	put_line(f, "keys: q quit  r t 9 n sort rate/total/p99/calls  a c API/component view  "
		 "p P process", cols, 0);
	room = rows > used + 1 ? (size_t)(rows - used - 1) : 1;
	n = live_view_lines(&r, st->view, cols, room, &lines);
	for (size_t i = 0; i < n; i++) {
		put_line(f, lines[i], cols, i + 1 == n);
		free(lines[i]);
	}
	free(lines);
	fputs("\033[J", f);
	fclose(f);
	fwrite(out, 1, outlen, stdout);
	fflush(stdout);
	free(out);
	live_rows_free(&r);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A key: 1 if the view changed and wants a redraw. */
static int key(struct state *st, int ch, const struct sc_profile *p)
{
	size_t npick = count_picks(st, p);

	switch (ch) {
	case 'q': case 'Q': got_quit = 1; return 0;
	case 'r': st->sort = LSORT_RATE; return 1;
	case 't': st->sort = LSORT_TOTAL; return 1;
	case '9': st->sort = LSORT_P99; return 1;
	case 'n': st->sort = LSORT_COUNT; return 1;
	case 'a': st->view = VIEW_API; return 1;
	case 'c': st->view = VIEW_COMP; return 1;
	case 'p': st->pick = (st->pick + 1) % (npick + 1); return 1;
	case 'P': st->pick = (st->pick + npick) % (npick + 1); return 1;
	}
	return 0;
}

static int run_screen(struct state *st, struct live_snap *cur)
{
	struct live_snap prev_s, *prev = NULL;
	int64_t next = mono_ms() + (int64_t)(st->interval * 1000);

	screen_enter();
	draw(st, cur, prev);
	while (!got_quit) {
		int64_t wait = next - mono_ms();
		struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
		int redraw = 0;

		if (wait > 0) {
			int r = poll(&pfd, tty_raw ? 1 : 0, (int)wait);

			if (r > 0 && (pfd.revents & POLLIN)) {
				char keys[32];
				ssize_t k = read(STDIN_FILENO, keys, sizeof(keys));

				for (ssize_t i = 0; i < k; i++)
					redraw |= key(st, keys[i], &cur->p);
				if (k == 0)
					got_quit = 1;   /* the terminal is gone */
			} else if (r > 0) {
				got_quit = 1;           /* POLLHUP */
			}
		} else {
			struct live_snap fresh;
			char err[512];

			next += (int64_t)(st->interval * 1000);
			if (next < mono_ms())
				next = mono_ms() + (int64_t)(st->interval * 1000);
			if (live_snap_load(&fresh, st->dir, err, sizeof(err)) == 0) {
				if (prev)
					live_snap_free(prev);
				prev_s = *cur;
				prev = &prev_s;
				*cur = fresh;
				st->status[0] = 0;
			} else {
				snprintf(st->status, sizeof(st->status), "%.200s", err);
				live_snap_free(&fresh);
			}
			redraw = 1;
		}
		if (got_winch) {
			got_winch = 0;
			redraw = 1;
		}
		if (redraw && !got_quit)
			draw(st, cur, prev);
	}
	screen_leave();
	if (prev)
		live_snap_free(prev);
	return 0;
}

int cmd_live(int argc, char **argv)
{
	struct opts o = { .interval = "1", .sort = LSORT_RATE, .view = VIEW_API };
	struct state st = { 0 };
	struct live_snap cur;
	char dir[4096], err[1024], *end;
	uint32_t pid = 0;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc == CLI_EXIT ? 0 : 2;
	errno = 0;
	st.interval = strtod(o.interval, &end);
	if (errno || end == o.interval || *end || !isfinite(st.interval) || st.interval < 0.05 ||
	    st.interval > 3600)
		return cli_usage_error(&live_cmd, "--interval wants seconds from 0.05 to 3600, "
				       "not '%s'", o.interval);
	if (!o.once && !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "scaler: live: the full-screen view needs a terminal "
			"(for one snapshot: scaler live --once)\n");
		return 2;
	}
	st.base.kind = SEL_ALL;
	if (o.pid) {
		if (proc_resolve("live", o.pid, dir, sizeof(dir), &pid) < 0)
			return 1;
		st.base = (struct live_sel){ SEL_TREE, pid, 0 };
	} else {
		snprintf(dir, sizeof(dir), "%s", o.input ? o.input : "scaler.data");
	}
	st.dir = dir;
	st.sort = o.sort;
	st.view = o.view;
	if (live_snap_load(&cur, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "scaler: live: %s\n", err);
		live_snap_free(&cur);
		return 1;
	}
	if (pid) {
		size_t i;

		for (i = 0; i < cur.p.nimages && cur.p.images[i].pid != pid; i++)
			;
		if (i == cur.p.nimages) {
			fprintf(stderr, "scaler: live: process %u has no profile in %s yet\n", pid, dir);
			live_snap_free(&cur);
			return 1;
		}
	}
	if (o.once) {
		struct live_rows r;

		live_rows_build(&r, &cur, NULL, &st.base, st.view, st.sort);
		if (o.json) {
			once_json(&cur, &st.base, r.elapsed_ns);
		} else {
			char **lines, a[32], b[32];
			size_t n = live_view_lines(&r, st.view, 160, 0, &lines);

			report_fmt_count(a, sizeof(a), r.count);
			report_fmt_ns(b, sizeof(b), (long double)r.total_ns);
			printf("scaler live: %s: %zu process%s (%zu running), calls %s, time %s; "
			       "rates since start\n", dir, r.nimages, r.nimages == 1 ? "" : "es",
			       r.nrunning, a, b);
			for (size_t i = 0; i < n; i++) {
				puts(lines[i]);
				free(lines[i]);
			}
			free(lines);
		}
		live_rows_free(&r);
		rc = fflush(stdout) || ferror(stdout);
		if (rc)
			fprintf(stderr, "scaler: live: write error on stdout: %s\n", strerror(errno));
	} else {
		rc = run_screen(&st, &cur);
	}
	live_snap_free(&cur);
	return rc;
}
