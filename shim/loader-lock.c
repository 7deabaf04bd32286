/* loader-lock.c — see loader-lock.h.
 *
 * glibc keeps the loader's locks side by side in its global data (struct rtld_global, since
 * 2.13: _dl_nns, then the recursive mutexes _dl_load_lock and _dl_load_write_lock).
 * dl_iterate_phdr holds the second while it calls back: inside the callback, the one recursive
 * mutex in the loader's writable segments that this thread owns is _dl_load_write_lock, and the
 * mutex just before it is _dl_load_lock.  Each step is checked (that one owned mutex only, or
 * the two of them when this thread runs a library constructor; both recursive; a namespace
 * count before them): anything else is "not found", and the client loader keeps to its helper
 * thread. */
#include "loader-lock.h"

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <unistd.h>

enum { UNKNOWN, FOUND, ABSENT };
enum { NAMESPACES_MAX = 16 }; /* glibc's DL_NNS */

static int looked; /* UNKNOWN, FOUND, ABSENT */
static pthread_mutex_t *lock;

/* other threads may take these mutexes meanwhile: each field is read once, atomically */
static bool recursive(const pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) == PTHREAD_MUTEX_RECURSIVE_NP;
}

static bool held_by(const pthread_mutex_t *m, pid_t tid)
{
	const struct __pthread_mutex_s *d = &m->__data;
	return __atomic_load_n(&d->__owner, __ATOMIC_RELAXED) == tid &&
	       __atomic_load_n(&d->__count, __ATOMIC_RELAXED) >= 1 &&
	       __atomic_load_n(&d->__lock, __ATOMIC_RELAXED) != 0 && recursive(m);
}

struct search {
	pid_t me;
	int owned;              /* recursive mutexes this thread owns in the loader's data */
	pthread_mutex_t *first; /* the first of them */
	pthread_mutex_t *write; /* the last of them */
	uintptr_t lo;           /* the start of the segment that holds it */
};

static int look_in_loader(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct search *s = arg;
	(void)size;
	if (info->dlpi_addr != getauxval(AT_BASE) || !info->dlpi_addr)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		const size_t align = _Alignof(pthread_mutex_t);
		for (uintptr_t p = (lo + align - 1) & ~(align - 1); p + sizeof(pthread_mutex_t) <= hi;
		     p += align) {
			pthread_mutex_t *m = (pthread_mutex_t *)p;
			if (held_by(m, s->me)) {
				if (!s->owned++)
					s->first = m;
				s->write = m;
				s->lo = lo;
			}
		}
	}
	return 1;
}

static pthread_mutex_t *find(void)
{
	struct search s = { .me = gettid() };
	dl_iterate_phdr(look_in_loader, &s);
	pthread_mutex_t *load = s.write - 1;
	/* the write lock alone, or both when this thread holds the loader's lock (a constructor) */
	if (s.owned != 1 && !(s.owned == 2 && s.first == load))
		return NULL;
	const size_t *namespaces = (const size_t *)load - 1;
	if ((uintptr_t)namespaces < s.lo || !recursive(load) || *namespaces < 1 ||
	    *namespaces > NAMESPACES_MAX)
		return NULL;
	return load;
}

pthread_mutex_t *rtshim_loader_lock(void)
{
	int l = __atomic_load_n(&looked, __ATOMIC_ACQUIRE);
	if (l == UNKNOWN) {
		pthread_mutex_t *m = find(); /* two first callers find the same */
		__atomic_store_n(&lock, m, __ATOMIC_RELAXED);
		__atomic_store_n(&looked, m ? FOUND : ABSENT, __ATOMIC_RELEASE);
		return m;
	}
	return l == FOUND ? __atomic_load_n(&lock, __ATOMIC_RELAXED) : NULL;
}
