/*
 * test_peek.c - unit test of sc_arch_reads_return_address
 * (arch/x86_64/peek.c): function starts as compilers emit them, each with
 * the answer. The code is padded with int3 so the decoder may look ahead.
 */
#include <string.h>

#include "arch.h"
#include "check.h"

static void peek(const char *what, const char *code, size_t len, bool want)
{
	uint8_t buf[128];
	memset(buf, 0xcc, sizeof(buf));
	memcpy(buf, code, len);
	bool got = sc_arch_reads_return_address(buf, sizeof(buf));
	CHECK(got == want, "%s: %d, want %d", what, got, want);
}

#define P(what, code, want) peek(what, code, sizeof(code) - 1, want)

int main(void)
{
	/* mov (%rsp),%rax; ret */
	P("leaf", "\x48\x8b\x04\x24\xc3", true);
	P("leaf with endbr64", "\xf3\x0f\x1e\xfa\x48\x8b\x04\x24\xc3", true);
	/* push r13, r12, rbp, rbx; sub $8,%rsp; mov 0x28(%rsp),%r13 */
	P("framed", "\x41\x55\x41\x54\x55\x53\x48\x83\xec\x08\x4c\x8b\x6c\x24\x28", true);
	/* glibc 2.36 dlopen: push rbx; sub $0x30; mov %fs:0x28,%rax;
	 * mov %rax,0x28(%rsp); mov x(%rip),%rax; mov 0x368(%rax),%rbx;
	 * test %rbx,%rbx; je; mov (%rbx),%rax; mov 0x38(%rsp),%rdx */
	P("dlopen", "\x53\x48\x83\xec\x30\x64\x48\x8b\x04\x25\x28\x00\x00\x00"
		    "\x48\x89\x44\x24\x28\x48\x8b\x05\x7e\xd9\x14\x00"
		    "\x48\x8b\x98\x68\x03\x00\x00\x48\x85\xdb\x74\x22"
		    "\x48\x8b\x03\x48\x8b\x54\x24\x38", true);
	/* push %rbp; mov %rsp,%rbp; mov 0x8(%rbp),%rax */
	P("rbp frame", "\x55\x48\x89\xe5\x48\x8b\x45\x08", true);
	/* push %rbx; mov 0x10(%rsp),%rax: the first stack argument */
	P("stack argument", "\x53\x48\x8b\x44\x24\x10\xc3", false);
	/* push %rbx; mov 0x8(%rsp),%rbx... after and $-16,%rsp: unknown */
	P("realigned", "\x53\x48\x83\xe4\xf0\x48\x8b\x44\x24\x08", false);
	/* 32-bit load of the slot is not a return address */
	P("32-bit", "\x8b\x04\x24\xc3", false);
	/* mov (%rsp),%rax after ret: another function */
	P("after ret", "\x31\xc0\xc3\x48\x8b\x04\x24", false);
	/* lea 8(%rsp),%rax; mov (%rax),%rax is not followed */
	P("plain", "\x48\x8d\x44\x24\x08\x48\x8b\x00\xc3", false);
	/* rbp set from elsewhere: mov %rdi,%rbp; mov 0x8(%rbp),%rax */
	P("rbp not a frame", "\x55\x48\x89\xfd\x48\x8b\x45\x08", false);
	return check_summary();
}
