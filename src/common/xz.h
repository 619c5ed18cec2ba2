/*
 * xz.h - decompressing an xz stream held in memory (an object's
 * .gnu_debugdata) into mapped memory. Shared by the CLI and the runtime:
 * liblzma is dlopen'ed on first use, never linked, so no process gets it
 * unless it reads such a section, and its allocations go to mmap, not to
 * the program's malloc.
 */
#ifndef SCALER_XZ_H
#define SCALER_XZ_H

#include <stddef.h>
#include <stdint.h>

/* The decompressed bytes: data[0, len), mapped (map_len bytes). */
struct sc_xz_buf {
	uint8_t *data;
	size_t len, map_len;
};

/* Decompresses in[0, n) into *out. 0 on success; -1 when liblzma cannot be
 * loaded, the stream is corrupt or would exceed 256 MB. */
int sc_xz_decode(const uint8_t *in, size_t n, struct sc_xz_buf *out);
void sc_xz_free(struct sc_xz_buf *b);

#endif
