/*
 * test_names.c - unit test of sc_api_name and sc_basename
 * (src/common/names.c).
 */
#include <string.h>

#include "names.h"
#include "check.h"

static void api(const char *raw, const char *want)
{
	char out[128];

	sc_api_name(raw, out, sizeof(out));
	CHECK(strcmp(out, want) == 0, "sc_api_name(\"%s\") = \"%s\" (want \"%s\")", raw, out, want);
}

static void base(const char *path, const char *want)
{
	const char *got = sc_basename(path);

	CHECK(strcmp(got, want) == 0, "sc_basename(\"%s\") = \"%s\" (want \"%s\")", path, got, want);
}

int main(void)
{
	char small[5];

	/* version suffixes */
	api("strlen@GLIBC_2.2.5", "strlen");
	api("foo@@V1", "foo");
	api("puts", "puts");
	/* IFUNC variants */
	api("__strlen_avx2", "strlen");
	api("__memmove_avx_unaligned_erms", "memmove");
	api("__memcpy_evex_unaligned_erms", "memcpy");
	api("__strchr_sse2", "strchr");
	api("__strchr_sse2_no_bsf", "strchr");
	api("__memset_avx512_unaligned_erms", "memset");
	api("__memcmp_sse4_1", "memcmp");
	api("__strcmp_sse42", "strcmp");
	api("__strcspn_sse4_2", "strcspn");
	api("__wcslen_sse2", "wcslen");
	api("__wmemset_evex256_unaligned", "wmemset");
	api("__stpcpy_ssse3", "stpcpy");
	api("__rawmemchr_evex", "rawmemchr");
	api("__memcpy_erms", "memcpy");
	api("__memmove_unaligned", "memmove");
	api("__strcasecmp_l_avx", "strcasecmp_l");
	api("__strncasecmp_l_sse2", "strncasecmp_l");
	api("__memcpy_chk_avx_unaligned", "__memcpy_chk");
	api("__strlen_avx2@GLIBC_PRIVATE", "strlen");
	/* left alone */
	api("__libc_start_main", "__libc_start_main");
	api("__libc_start_main@GLIBC_2.34", "__libc_start_main");
	api("_ZNSs4_Rep10_M_destroyERKSaIcE", "_ZNSs4_Rep10_M_destroyERKSaIcE");
	api("__cxa_finalize", "__cxa_finalize");
	api("__foo_avx2", "__foo_avx2");               /* not a string function */
	api("__memcpy_chk", "__memcpy_chk");
	api("__strlen_generic", "__strlen_generic");   /* unknown variant word */
	api("__strdup", "__strdup");
	api("___strlen_avx2", "___strlen_avx2");
	api("__str_", "__str_");
	api("", "");
	/* truncation */
	sc_api_name("strlen@GLIBC_2.2.5", small, sizeof(small));
	CHECK(strcmp(small, "strl") == 0, "truncated to the buffer: \"%s\"", small);
	small[0] = 'x';
	sc_api_name("abc", small, 0);
	CHECK(small[0] == 'x', "n == 0 writes nothing");

	base("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6");
	base("libm.so.6", "libm.so.6");
	base("./app", "app");
	base("/", "/");
	base("", "");
	base("dir/sub/", "sub/");
	return check_summary();
}
