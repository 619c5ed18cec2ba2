/*
 * test_symbols.c - unit test of sc_syms_each (src/common/symbols.c) on
 * programs it builds: with symbols, stripped (.eh_frame ranges), stripped
 * with a .gnu_debuglink beside it, stripped with its debug file found
 * by build-id under a debug root, and stripped with a .gnu_debugdata
 * section (xz-compressed symbols, as Fedora ships: a corrupt one falls
 * back to .eh_frame).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "check.h"

static const char prog[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) static int sc_test_alpha(int x) { return x * 3 + printf(\"a\"); }\n"
	"__attribute__((noinline)) int sc_test_beta(int x) { return sc_test_alpha(x) + 1; }\n"
	"__attribute__((cold, noinline)) void sc_cold_report(int x) { printf(\"cold %d\", x); }\n"
	"__attribute__((noinline)) int sc_test_gamma(int x) {\n"
	"  int r = sc_test_beta(x);\n"
	"  if (r > 1000) { sc_cold_report(x); sc_cold_report(r); r = 0; }\n"
	"  return r * 3 + sc_test_beta(r + x); }\n"
	"int main(int argc, char **argv) { (void)argv; return sc_test_beta(argc) + sc_test_gamma(argc) == 99; }\n";

struct found {
	int n, unnamed;
	uint64_t cold;          /* sc_test_gamma.cold, by name */
	int cold_unnamed;       /* an unnamed function starting at want_cold */
	uint64_t want_cold;
	uint64_t alpha, alpha_size, beta;
	int has_range;          /* an unnamed range equal to want_* */
	uint64_t want, want_size;
};

static int cb(void *ctx, const char *name, uint64_t addr, uint64_t size)
{
	struct found *f = ctx;
	f->n++;
	if (!name) {
		f->unnamed++;
		if (addr == f->want && size == f->want_size)
			f->has_range = 1;
		if (f->want_cold && addr == f->want_cold)
			f->cold_unnamed = 1;
	} else if (!strcmp(name, "sc_test_alpha")) {
		f->alpha = addr;
		f->alpha_size = size;
	} else if (!strcmp(name, "sc_test_gamma.cold")) {
		f->cold = addr;
	} else if (!strcmp(name, "sc_test_beta")) {
		f->beta = addr;
	}
	return 0;
}

static int sh(const char *cmd)
{
	int r = system(cmd);
	if (r != 0)
		printf("# command failed (%d): %s\n", r, cmd);
	return r;
}

int main(void)
{
	char dir[] = "/tmp/scaler-symtest-XXXXXX";
	char cmd[4096], path[512], root[600];
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/p.c", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fputs(prog, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && gcc -O2 -g -Wl,--build-id -o full p.c && strip -o bare full && "
		 "objcopy --only-keep-debug full full.debug && strip -o linked full && "
		 "objcopy --remove-section=.note.gnu.build-id linked && "
		 "objcopy --add-gnu-debuglink=full.debug linked && cp bare byid && "
		 "mkdir -p root/.build-id && "
		 "id=$(readelf -n full | sed -n 's/.*Build ID: //p') && "
		 "mkdir -p root/.build-id/${id%%${id#??}} && "
		 "cp full.debug root/.build-id/${id%%${id#??}}/${id#??}.debug", dir);
	int built = sh(cmd);         /* CHECK evaluates its condition twice */
	CHECK(built == 0, "test programs built");
	/* Fedora's mini debuginfo recipe (find-debuginfo, gdb's manual) */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && nm -D full --format=posix --defined-only | awk '{print $1}' | sort > dyn && "
		 "nm full --format=posix --defined-only | awk '$2 == \"T\" || $2 == \"t\" "
		 "{print $1}' | sort > funcs && comm -13 dyn funcs > keep && "
		 "objcopy --only-keep-debug full mini && "
		 "objcopy -S --remove-section .gdb_index --remove-section .comment "
		 "--keep-symbols=keep mini && xz -k mini && "
		 "cp bare withdata && objcopy --add-section .gnu_debugdata=mini.xz withdata && "
		 "head -c 200 mini.xz > bad.xz && cp bare baddata && "
		 "objcopy --add-section .gnu_debugdata=bad.xz baddata", dir);
	built = sh(cmd);
	CHECK(built == 0, "objects with .gnu_debugdata built");
	snprintf(root, sizeof(root), "%s/root", dir);
	char empty[700];
	snprintf(empty, sizeof(empty), "%s/none", dir);

	/* with symbols: .symtab */
	struct found full = {0};
	snprintf(path, sizeof(path), "%s/full", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &full), SC_SYMS_SYMTAB, "full: source");
	CHECK(full.alpha && full.alpha_size > 0, "full: static sc_test_alpha at 0x%llx, %llu bytes",
	      (unsigned long long)full.alpha, (unsigned long long)full.alpha_size);
	CHECK(full.beta && full.beta != full.alpha, "full: sc_test_beta");
	CHECK_EQ(full.unnamed, 0, "full: no unnamed function");

	/* stripped, no debug file reachable: .eh_frame */
	CHECK(full.cold != 0, "full: sc_test_gamma.cold, a cold part");
	struct found bare = {.want = full.alpha, .want_size = full.alpha_size,
			     .want_cold = full.cold};
	snprintf(path, sizeof(path), "%s/bare", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &bare), SC_SYMS_EHFRAME, "bare: source");
	CHECK(bare.n >= 3 && bare.unnamed == bare.n, "bare: %d unnamed functions", bare.n);
	CHECK(bare.has_range, "bare: an FDE covers exactly sc_test_alpha");
	CHECK(full.cold && !bare.cold_unnamed,
	      "bare: the cold part's FDE (entered inside a frame) is no function");

	/* stripped with a debuglink to full.debug beside it (no build-id) */
	struct found linked = {0};
	snprintf(path, sizeof(path), "%s/linked", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &linked), SC_SYMS_DEBUGFILE, "debuglink: source");
	CHECK(linked.alpha == full.alpha && linked.alpha_size == full.alpha_size,
	      "debuglink: sc_test_alpha as in the full program");

	/* stripped, its debug file under root/.build-id */
	struct found byid = {0};
	snprintf(path, sizeof(path), "%s/byid", dir);
	CHECK_EQ(sc_syms_each(path, root, cb, &byid), SC_SYMS_DEBUGFILE, "build-id: source");
	CHECK(byid.alpha == full.alpha && byid.beta == full.beta, "build-id: names as in the full program");

	/* stripped, its functions in .gnu_debugdata */
	struct found mini = {0};
	snprintf(path, sizeof(path), "%s/withdata", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &mini), SC_SYMS_DEBUGDATA, ".gnu_debugdata: source");
	CHECK(mini.alpha == full.alpha && mini.alpha_size == full.alpha_size &&
	      mini.beta == full.beta && mini.cold == full.cold,
	      ".gnu_debugdata: static and global functions, a cold part, as in the full program");
	CHECK_EQ(mini.unnamed, 0, ".gnu_debugdata: no unnamed function");

	/* a truncated xz stream: its .eh_frame instead */
	struct found bad = {0};
	snprintf(path, sizeof(path), "%s/baddata", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &bad), SC_SYMS_EHFRAME, "corrupt .gnu_debugdata: .eh_frame");

	/* not ELF, missing */
	struct found none = {0};
	snprintf(path, sizeof(path), "%s/p.c", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &none), -1, "a C file: not ELF");
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK_EQ(sc_syms_each(path, empty, cb, &none), -1, "a missing file");
	CHECK_EQ(none.n, 0, "nothing reported for them");

	char anon[64];
	sc_syms_anon_name(anon, sizeof(anon), "/usr/bin/gzip", 0x1a2b);
	CHECK(!strcmp(anon, "gzip+0x1a2b"), "anonymous name %s", anon);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	return check_summary();
}
