/* loader-lock.h — the dynamic loader's lock (glibc's dl_load_lock: dlopen, dlclose and dladdr
 * hold it, and so does a library constructor that dlopen runs), found in the loader's own data,
 * so that a thread can take it with a time bound before it loads the daemon client itself. */
#ifndef RTSHIM_LOADER_LOCK_H
#define RTSHIM_LOADER_LOCK_H

#include <pthread.h>

/* The loader's lock (a recursive mutex), or NULL when it cannot be told apart with certainty.
 * Looked for once per process. */
pthread_mutex_t *rtshim_loader_lock(void);

#endif
