/* hooks-syscall-entry.S — the exported syscall(): sched_setscheduler, sched_setparam,
 * sched_setattr and their readers (sched_getscheduler, sched_getparam, sched_getattr) go to
 * rtshim_syscall_sched (hooks-syscall.c); rt_sigaction to
 * rtshim_syscall_sigaction (hooks-signal.c: SIGXCPU's disposition once the runaway guard is
 * armed), rt_sigprocmask to rtshim_syscall_sigmask (hooks-signal.c: SIGXCPU kept deliverable
 * to a realtime thread, likewise) and prlimit64 to rtshim_syscall_prlimit (hooks-rlimit.c:
 * RLIMIT_RTTIME, likewise), on every architecture below; every other number straight on to
 * the next syscall() with the argument registers and the stack as the caller left them (only
 * what a PLT stub may change is changed: the flags and x86's rax, arm64's x16, arm's ip).  In
 * assembly because C cannot pass on a variadic call without reading arguments the caller may
 * not have passed.  Before the shim's constructor has resolved the next syscall() (another
 * library's constructor runs first), the system call is made here (rtshim_raw_syscall): no
 * dynamic linker on that path.  One entry per architecture whose libc syscall() it mirrors
 * (glibc's sysdeps/unix/sysv/linux/ARCH/syscall.S); elsewhere libc's syscall() is left alone.
 * Cost for every other number: a compare per number above, a load and an indirect jump, below
 * the noise of a system call (syscall(SYS_getpid), x86_64: 1031 ns plain, 1044 ns with the
 * shim, median of 15 runs; best runs 933 and 932 ns). */
#include <asm/unistd.h>

#include "asm.h"
#include "raw-syscall.h"

#ifdef RTSHIM_SYSCALL_ENTRY
	.text
	.globl	syscall
	.type	syscall, %function
	.hidden	rtshim_syscall_sched
	.hidden	rtshim_syscall_sigaction
	.hidden	rtshim_syscall_prlimit
	.hidden	rtshim_syscall_sigmask
	.hidden	rtshim_syscall_next
	.hidden	rtshim_raw_syscall
#endif

#if defined(__x86_64__)
	.p2align 4
syscall:
	ENTRY_PAD
	cmpq	$__NR_sched_setscheduler, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_setparam, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_setattr, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_getscheduler, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_getparam, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_getattr, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_rt_sigaction, %rdi
	je	rtshim_syscall_sigaction
	cmpq	$__NR_rt_sigprocmask, %rdi
	je	rtshim_syscall_sigmask
	cmpq	$__NR_prlimit64, %rdi
	je	rtshim_syscall_prlimit
	movq	rtshim_syscall_next(%rip), %rax
	testq	%rax, %rax
	jz	rtshim_raw_syscall
	jmp	*%rax
	.size	syscall, .-syscall

#elif defined(__i386__)
	.p2align 4
syscall:
	ENTRY_PAD
	movl	4(%esp), %eax
	cmpl	$__NR_sched_setscheduler, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_setparam, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_setattr, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_getscheduler, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_getparam, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_getattr, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_rt_sigaction, %eax
	je	rtshim_syscall_sigaction
	cmpl	$__NR_rt_sigprocmask, %eax
	je	rtshim_syscall_sigmask
	cmpl	$__NR_prlimit64, %eax
	je	rtshim_syscall_prlimit
	call	.Lpc_ecx		/* a call that returns: shadow stack and return predictor */
	addl	$_GLOBAL_OFFSET_TABLE_, %ecx
	movl	rtshim_syscall_next@GOTOFF(%ecx), %eax
	testl	%eax, %eax
	jz	rtshim_raw_syscall
	jmp	*%eax
.Lpc_ecx:
	movl	(%esp), %ecx
	ret
	.size	syscall, .-syscall

#elif defined(__aarch64__)
	.p2align 4
syscall:
	ENTRY_PAD
	cmp	w0, #__NR_sched_setscheduler	/* w0: the bits glibc's syscall() reads */
	b.eq	1f
	cmp	w0, #__NR_sched_setparam
	b.eq	1f
	cmp	w0, #__NR_sched_setattr
	b.eq	1f
	cmp	w0, #__NR_sched_getscheduler
	b.eq	1f
	cmp	w0, #__NR_sched_getparam
	b.eq	1f
	cmp	w0, #__NR_sched_getattr
	b.eq	1f
	cmp	w0, #__NR_rt_sigaction
	b.eq	3f
	cmp	w0, #__NR_rt_sigprocmask
	b.eq	5f
	cmp	w0, #__NR_prlimit64
	b.eq	4f
	adrp	x16, rtshim_syscall_next
	ldr	x16, [x16, #:lo12:rtshim_syscall_next]
	cbz	x16, 2f
	br	x16			/* x16: a PLT's register, which BTI lets onto libc's `bti c` */
1:	mov	w0, w0			/* the same number rtshim_syscall_sched compares, as a long */
	b	rtshim_syscall_sched
2:	b	rtshim_raw_syscall
3:	mov	w0, w0
	b	rtshim_syscall_sigaction
4:	mov	w0, w0
	b	rtshim_syscall_prlimit
5:	mov	w0, w0
	b	rtshim_syscall_sigmask
	.size	syscall, .-syscall

#elif defined(__arm__) && defined(__ARM_EABI__)
/* In the instruction set the compiler uses for C (Thumb-2 on armhf), so that the branches to the
 * C function need no interworking.  Only ip (the scratch register a PLT uses) and the flags are
 * changed on the way to the next syscall(). */
#ifdef __thumb2__
#define PC_BIAS 4
#else
#define PC_BIAS 8
#endif
	.syntax	unified
	.p2align 2
#ifdef __thumb2__
	.thumb
	.thumb_func
#else
	.arm
#endif
syscall:
	cmp	r0, #__NR_sched_setscheduler
	beq	1f
	cmp	r0, #__NR_sched_setparam
	beq	1f
	cmp	r0, #__NR_sched_setattr
	beq	1f
	cmp	r0, #__NR_sched_getscheduler
	beq	1f
	cmp	r0, #__NR_sched_getparam
	beq	1f
	movw	ip, #__NR_sched_getattr	/* 381: no immediate of cmp can say it */
	cmp	r0, ip
	beq	1f
	cmp	r0, #__NR_rt_sigaction
	beq	5f
	cmp	r0, #__NR_rt_sigprocmask
	beq	7f
	movw	ip, #__NR_prlimit64	/* 369: no immediate of cmp can say it */
	cmp	r0, ip
	beq	6f
	ldr	ip, 3f
2:	add	ip, ip, pc
	ldr	ip, [ip]
	cmp	ip, #0
	beq	4f
	bx	ip
1:	b	rtshim_syscall_sched
4:	b	rtshim_raw_syscall
5:	b	rtshim_syscall_sigaction
6:	b	rtshim_syscall_prlimit
7:	b	rtshim_syscall_sigmask
	.p2align 2
3:	.word	rtshim_syscall_next - (2b + PC_BIAS)
	.size	syscall, .-syscall

#elif defined(__s390x__)
/* The number in r2, all 64 bits of it as glibc's syscall() reads them; only r1 (a PLT's scratch
 * register) and the condition code are changed on the way to the next syscall(). */
	.p2align 3
syscall:
	cghi	%r2,__NR_sched_setscheduler
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_sched_setparam
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_sched_setattr
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_sched_getscheduler
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_sched_getparam
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_sched_getattr
	jge	rtshim_syscall_sched
	cghi	%r2,__NR_rt_sigaction
	jge	rtshim_syscall_sigaction
	cghi	%r2,__NR_rt_sigprocmask
	jge	rtshim_syscall_sigmask
	cghi	%r2,__NR_prlimit64
	jge	rtshim_syscall_prlimit
	larl	%r1,rtshim_syscall_next
	lg	%r1,0(%r1)
	ltgr	%r1,%r1
	jgz	rtshim_raw_syscall
	br	%r1
	.size	syscall, .-syscall
#endif

	.section .note.GNU-stack,"",%progbits
