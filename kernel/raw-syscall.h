/* raw-syscall.h — a system call made here, never through an interposer: on x86 the shim exports
 * syscall() itself (shim/hooks-syscall-entry.S), so code that must reach the kernel directly
 * (rtrun's own scheduling calls, the shim's demotion from a signal handler) calls
 * rtshim_raw_syscall.
 * Same contract as syscall(3): the result, or -1 with errno set. */
#ifndef RTSHIM_RAW_SYSCALL_H
#define RTSHIM_RAW_SYSCALL_H

#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
long rtshim_raw_syscall(long number, ...) __attribute__((visibility("hidden")));
#else
/* the shim interposes syscall() on x86 only: elsewhere libc's is the system call */
#define rtshim_raw_syscall syscall
#endif

#endif
