/* own-stack.h — run the shim's slow paths (the D-Bus exchange, stack traces: code that is not
 * async-signal-safe, and the unwinder that needs much stack) on a stack of the shim's own, with
 * the program's asynchronous signals blocked.
 *
 * A program may give a thread the smallest stack (PTHREAD_STACK_MIN, 16 KiB) and ask for
 * realtime from it; the unwinder needs more than such a thread has left (a request itself uses
 * 5.6 KiB of this stack, painted).  And a program's signal handler that interrupted the shim
 * inside a lock of libc's (stdio, the unwinder's dlopen) would deadlock in
 * fork() or malloc() of its own.  So what the shim adds to the program's stack is the
 * interposer's frame and the switch, and no handler of the program runs on the thread until
 * the slow path is over (a pending signal is delivered then, once the mask is restored).
 * Synchronous signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS) are never blocked. */
#ifndef RTSHIM_OWN_STACK_H
#define RTSHIM_OWN_STACK_H

#include <signal.h>

/* Size of the shim's own stack (mapped for each slow path, pages touched on use only). */
#define RTSHIM_OWN_STACK_SIZE (256 * 1024)

/* Whether a sanitizer runtime is loaded (then fn runs on the caller's stack); from the
 * constructor. */
void rtshim_own_stack_resolve(void);

/* fn(arg) on the shim's own stack, asynchronous signals blocked; its result. */
int rtshim_own_stack_run(int (*fn)(void *), void *arg);

/* The program's asynchronous signals blocked on this thread as rtshim_own_stack_run blocks
 * them (*old: the mask before), for what the shim holds on the program's stack (the gate,
 * budget.h); restored from *old. */
void rtshim_own_stack_block_signals(sigset_t *old);
void rtshim_own_stack_restore_signals(const sigset_t *old);

#endif
