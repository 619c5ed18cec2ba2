/*
 * sc_names - APIs whose names share a long start (pthread_mutexattr_*;
 * setprotocol and setprioceiling share 23 characters), so that a narrow API
 * column must still tell them apart (checks/names.py).
 */
#include <pthread.h>
#include <stdio.h>

int main(void)
{
	int kind = 0;
	for (int i = 0; i < 100; i++) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
		pthread_mutexattr_setprioceiling(&a, 0);    /* may refuse: called all the same */
		pthread_mutexattr_gettype(&a, &kind);
		pthread_mutexattr_destroy(&a);
	}
	printf("%d\n", kind == PTHREAD_MUTEX_RECURSIVE);
	return 0;
}
