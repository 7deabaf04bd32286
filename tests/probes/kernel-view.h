/* kernel-view.h — the kernel's own scheduling view of a thread, past every interposer: the shim
 * exports syscall() and its readers report what a successful call asked (rule 6), so the probes
 * that show the kernel's truth make the system call themselves (x86_64, i386, arm64, armhf, s390x).  No dynamic loader on the way
 * (a plugin's constructor thread must not wait for the loader's lock). */
#ifndef RTSHIM_PROBE_KERNEL_VIEW_H
#define RTSHIM_PROBE_KERNEL_VIEW_H

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A system call of two arguments: its result, or -1 with errno set. */
static inline long kernel_view_syscall(long nr, long a, long b)
{
	long r;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
#elif defined(__i386__)
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b) : "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a, x1 __asm__("x1") = b;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	r = x0;
#elif defined(__arm__) && defined(__ARM_EABI__)
	/* r7 carries the number and may be the frame pointer (Thumb): saved around the call */
	register long r0 __asm__("r0") = a, r1 __asm__("r1") = b;
	__asm__ volatile("push {r7}\n\tmov r7, %[nr]\n\tsvc #0\n\tpop {r7}"
			 : "+r"(r0)
			 : [nr] "r"(nr), "r"(r1)
			 : "memory");
	r = r0;
#elif defined(__s390x__)
	register long r1 __asm__("r1") = nr, r2 __asm__("r2") = a, r3 __asm__("r3") = b;
	__asm__ volatile("svc 0" : "+r"(r2) : "r"(r1), "r"(r3) : "memory");
	r = r2;
#else
	return syscall(nr, a, b);
#endif
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* The kernel's policy (SCHED_RESET_ON_FORK included) of thread `tid`, or -1. */
static inline int kernel_view_policy(pid_t tid)
{
	return (int)kernel_view_syscall(SYS_sched_getscheduler, tid, 0);
}

/* Its priority, or -1. */
static inline int kernel_view_prio(pid_t tid)
{
	struct sched_param p;
	if (kernel_view_syscall(SYS_sched_getparam, tid, (long)&p) < 0)
		return -1;
	return p.sched_priority;
}

#endif
