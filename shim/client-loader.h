/* client-loader.h — the shim loads librtshim-client.so from its own directory on first need
 * (os/client-open.h), on the requesting thread once it holds the dynamic loader's lock (taken
 * with a bound: shim/loader-lock.h), or on a short-lived helper thread where that lock cannot
 * be found, so that no request ever waits for the loader's lock longer than the configured
 * timeout. */
#ifndef RTSHIM_CLIENT_LOADER_H
#define RTSHIM_CLIENT_LOADER_H

#include <pthread.h>

#include "rtkit-client.h"

typedef int rtshim_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* From the shim's constructor: the real pthread_create (the helper thread must not go through
 * the shim's own), this process's identity, and the fork handler.  Before it has run (a
 * library constructor at start-up calls a hook first; the loader's lock is free then), in a
 * child made without fork() (vfork: no thread may be started there) and in a single-threaded
 * process (no other thread can hold the loader's lock), the client is loaded on the calling
 * thread directly. */
void rtshim_client_loader_init(rtshim_create_fn *real_create);

/* The shim's client: the table loaded once per process from the directory of the object this
 * code is linked into; NULL (logged once at warn) when the library or its symbol cannot be
 * loaded, or when the load has not finished within timeout_ms: dlopen waits for the dynamic
 * loader's lock, which a thread may hold while it waits for the caller (a library constructor
 * run by dlopen that waits for a thread it started).  A later call loads it (or finds it, loaded
 * by the helper meanwhile).  timeout_ms is applied to the client when it loads. */
const struct rtshim_client_v1 *rtshim_client_get(int timeout_ms);

/* For a thread about to wait for a new thread whose request needs the client (pthread_create
 * with an RT attribute).  That creator may itself hold the loader's lock (a library constructor
 * creating an RT thread, as libffado's does): the loader's lock is recursive for its holder, so
 * the load goes on here (and where the helper loads, when it waits for a lock this thread
 * holds).  Otherwise the same bound as rtshim_client_get: a creator that a lock holder waits
 * for never hangs. */
const struct rtshim_client_v1 *rtshim_client_load_here(int timeout_ms);

#endif
