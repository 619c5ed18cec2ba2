/*
 * main.c - the "spawn" e2e test: vfork+exec, posix_spawn, system and a
 * fork child that calls the same APIs as its parent. Every process is
 * profiled into the same directory; the parent's counts are not
 * duplicated into the fork child.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(void) {
  int st; pid_t p;
  p = vfork(); if (p == 0) { execl("/bin/echo", "echo", "vfork-child", (char*)0); _exit(127); } waitpid(p, &st, 0);
  char *argv[] = {"echo", "spawned", NULL}; posix_spawn(&p, "/bin/echo", NULL, NULL, argv, environ); waitpid(p, &st, 0);
  int r = system("echo from-system; exit 4"); 
  p = fork(); if (p == 0) { printf("child len=%zu\n", strlen("abcdef")); exit(9); } waitpid(p, &st, 0);
  printf("system=%d fork-child=%d len=%zu\n", WEXITSTATUS(r), WEXITSTATUS(st), strlen("xyz"));
  return 0;
}
