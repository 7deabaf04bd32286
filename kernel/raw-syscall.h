/* raw-syscall.h — a system call made here, never through an interposer: where the shim exports
 * syscall() itself (shim/hooks-syscall-entry.S), code that must reach the kernel directly
 * (rtrun's own scheduling calls, the shim's demotion from a signal handler) calls
 * rtshim_raw_syscall.
 * Same contract as syscall(3): the result, or -1 with errno set.
 * Also read by the assembly files and by shim/librtshim.map (preprocessed): the one list of
 * architectures that have both entries. */
#ifndef RTSHIM_RAW_SYSCALL_H
#define RTSHIM_RAW_SYSCALL_H

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
	(defined(__arm__) && defined(__ARM_EABI__)) || defined(__s390x__)
#define RTSHIM_SYSCALL_ENTRY 1
#endif

#ifndef __ASSEMBLER__
#include <unistd.h>

#ifdef RTSHIM_SYSCALL_ENTRY
long rtshim_raw_syscall(long number, ...) __attribute__((visibility("hidden")));
/* The same call, but the kernel's own result: -errno on failure, errno left alone.  For a child
 * that shares its parent's memory and thread-local storage (clone CLONE_VM without
 * CLONE_SETTLS): its errno is the parent's, which it must not write. */
long rtshim_raw_syscall_result(long number, ...) __attribute__((visibility("hidden")));
#else
/* the shim interposes syscall() only where it has the entry: elsewhere libc's is the system call */
#define rtshim_raw_syscall syscall
#endif
#endif

#endif
