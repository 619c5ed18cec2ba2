/*
 * symbols.h - the functions an ELF object defines, with their start and
 * size, from the best source it has. Shared by the CLI and the runtime:
 * nothing here allocates (files are mapped, read and unmapped) and no
 * descriptor is kept past a call.
 *
 * Sources, in the order tried:
 *   SC_SYMS_SYMTAB     the object's own .symtab
 *   SC_SYMS_DEBUGFILE  a separate debug file: <root>/.build-id/xx/yyyy.debug
 *                      by the object's build-id, else its .gnu_debuglink
 *                      name beside the object, in its .debug/, or under
 *                      <root> followed by the object's directory
 *   SC_SYMS_DEBUGDATA  its .gnu_debugdata: an xz-compressed ELF file whose
 *                      .symtab has the functions .dynsym lacks (Fedora's
 *                      mini debuginfo), with the object's .dynsym;
 *                      liblzma is dlopen'ed for it (xz.h)
 *   SC_SYMS_EHFRAME    a stripped object: every FDE of .eh_frame that
 *                      starts a frame is one function, without a name
 *                      (one that starts inside a frame is a .cold part)
 */
#ifndef SCALER_SYMBOLS_H
#define SCALER_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

enum sc_syms_source {
	SC_SYMS_NONE = 0,
	SC_SYMS_SYMTAB = 1,
	SC_SYMS_DEBUGFILE = 2,
	SC_SYMS_EHFRAME = 3,
	SC_SYMS_DEBUGDATA = 4,
};

/*
 * One function: name (NULL for a function known only from .eh_frame;
 * valid during the call only), its link-time address (add the object's
 * load bias) and size in bytes (0: unknown). A non-zero return stops the
 * walk.
 */
typedef int (*sc_syms_fn)(void *ctx, const char *name, uint64_t addr, uint64_t size);

/*
 * Calls fn for every function defined in the ELF file at path, from the
 * first source above that has any; debug_root is where debug files live
 * ("/usr/lib/debug" when NULL). Returns the source used, SC_SYMS_NONE when
 * the file has none, or -1 when it cannot be read as a 64-bit ELF file.
 * Aliases (several names at one address) are each reported.
 */
int sc_syms_each(const char *path, const char *debug_root, sc_syms_fn fn, void *ctx);

/* "object+0xoffset": the name of a function known only by its address. */
void sc_syms_anon_name(char *out, size_t n, const char *path, uint64_t addr);

#endif
