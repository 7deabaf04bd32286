/* own-stack.c — see own-stack.h.
 *
 * The stack is mapped for the call and unmapped after it (the slow path makes a D-Bus round
 * trip: a mapping costs little beside it, and no thread keeps memory it no longer uses), with a
 * page below it that faults, so an overflow is a SIGSEGV here rather than a write into another
 * mapping.  The switch is swapcontext, which also sets the signal mask: the function runs with
 * the program's asynchronous signals blocked, and the program's mask is back when it returns.
 * Under a sanitizer (ASan, TSan: they track one stack per thread; ASan warns on the first
 * swapcontext that it does not fully support it) the function runs on the caller's stack, with
 * the same mask: whether the shim is built with one or the program is (its runtime is loaded). */
#include "own-stack.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "runaway.h" /* the next pthread_sigmask */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OWN_STACK_SWITCH 0
#else
#define OWN_STACK_SWITCH 1
#endif

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> /* client requests: no-ops outside valgrind, no library */
#else
#define VALGRIND_STACK_REGISTER(lo, hi) 0
#define VALGRIND_STACK_DEREGISTER(id) ((void)(id))
#endif

/* What the switched-to stack holds at its bottom, above the guard page. */
struct run {
	int (*fn)(void *);
	void *arg;
	int result;
	ucontext_t back, own;
};

/* A sanitizer runtime in the process (the program's own): set once, from the constructor. */
static int beside_sanitizer;

#if OWN_STACK_SWITCH
/* The runtimes' entry points as weak references: the dynamic loader binds them when it loads
 * the shim (BIND_NOW) if the program has a runtime, and leaves them null otherwise.  Not
 * dlsym(RTLD_DEFAULT): in the usual program, which has none, each failed lookup mallocs its
 * error message (the heap set up, its pages touched, in a program that may never allocate)
 * and leaves it for the program's next dlerror(). */
extern void __asan_init(void) __attribute__((weak));
extern void __hwasan_init(void) __attribute__((weak));
extern void __tsan_init(void) __attribute__((weak));
#endif

void rtshim_own_stack_resolve(void)
{
#if OWN_STACK_SWITCH
	int found = __asan_init || __hwasan_init || __tsan_init;
	__atomic_store_n(&beside_sanitizer, found, __ATOMIC_RELAXED);
#endif
}

/* initial-exec: no __tls_get_addr (the dynamic loader), the shim is loaded at start-up */
static __thread struct run *running __attribute__((tls_model("initial-exec")));

static void sync_signals_unblocked(sigset_t *set)
{
	/* what a fault of the shim's own raises must reach the program's handler (or kill) */
	static const int sync[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };
	for (size_t i = 0; i < sizeof sync / sizeof sync[0]; i++)
		sigdelset(set, sync[i]);
}

static void entry(void)
{
	struct run *r = running;
	r->result = r->fn(r->arg);
	/* returns through uc_link: r->back, the caller's context and signal mask */
}

void rtshim_own_stack_block_signals(sigset_t *old)
{
	sigset_t block;
	sigfillset(&block);
	sync_signals_unblocked(&block);
	/* the next pthread_sigmask: the guard's own would keep SIGXCPU out of the set */
	rtshim_runaway_real_sigmask()(SIG_BLOCK, &block, old);
}

void rtshim_own_stack_restore_signals(const sigset_t *old)
{
	rtshim_runaway_real_sigmask()(SIG_SETMASK, old, NULL);
}

static int run_here(int (*fn)(void *), void *arg)
{
	sigset_t old;
	rtshim_own_stack_block_signals(&old);
	int result = fn(arg);
	rtshim_own_stack_restore_signals(&old);
	return result;
}

int rtshim_own_stack_run(int (*fn)(void *), void *arg)
{
	if (!OWN_STACK_SWITCH || __atomic_load_n(&beside_sanitizer, __ATOMIC_RELAXED))
		return run_here(fn, arg);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = page + RTSHIM_OWN_STACK_SIZE;
	char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (mem == MAP_FAILED)
		return run_here(fn, arg); /* no memory for it: on the caller's stack */
	(void)mprotect(mem, page, PROT_NONE);
	struct run *r = (struct run *)(mem + page);
	char *lo = (char *)(r + 1), *hi = mem + size;
	*r = (struct run){ .fn = fn, .arg = arg };
	getcontext(&r->own);
	r->own.uc_stack.ss_sp = lo;
	r->own.uc_stack.ss_size = (size_t)(hi - lo);
	r->own.uc_link = &r->back;
	/* the program's mask and its asynchronous signals (getcontext read the mask) */
	sigset_t block;
	sigfillset(&block);
	sync_signals_unblocked(&block);
	sigorset(&r->own.uc_sigmask, &r->own.uc_sigmask, &block);
	makecontext(&r->own, entry, 0);
	unsigned vg = VALGRIND_STACK_REGISTER(lo, hi);
	struct run *outer = running; /* a nested run (none today): restored after */
	running = r;
	swapcontext(&r->back, &r->own);
	running = outer;
	VALGRIND_STACK_DEREGISTER(vg);
	int result = r->result;
	munmap(mem, size);
	return result;
}
