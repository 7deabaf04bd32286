/* hooks-syscall-entry.S — the exported syscall(): sched_setscheduler, sched_setparam and
 * sched_setattr go to rtshim_syscall_sched (hooks-syscall.c), rt_sigaction to
 * rtshim_syscall_sigaction (hooks-signal.c: SIGXCPU's disposition once the runaway guard is
 * armed), prlimit64 to rtshim_syscall_prlimit (hooks-rlimit.c: RLIMIT_RTTIME, likewise), every
 * other number straight on to
 * the next syscall() with the registers and stack as the caller left them.  In assembly because C cannot pass on
 * a variadic call without reading arguments the caller may not have passed.  Before the shim's
 * constructor has resolved the next syscall() (another library's constructor runs first), the
 * system call is made here (rtshim_raw_syscall): no dynamic linker on that path.
 * Cost for every other number: three compares and an indirect jump, below the noise of a system
 * call (syscall(SYS_getpid), x86_64: 1031 ns plain, 1044 ns with the shim, median of 15 runs;
 * best runs 933 and 932 ns). */
#include <asm/unistd.h>

#ifdef __CET__
#include <cet.h>
#else
#define _CET_ENDBR
#endif

#if defined(__x86_64__)
	.text
	.globl	syscall
	.type	syscall, @function
	.hidden	rtshim_syscall_sched
	.hidden	rtshim_syscall_sigaction
	.hidden	rtshim_syscall_prlimit
	.hidden	rtshim_syscall_next
	.hidden	rtshim_raw_syscall
	.p2align 4
syscall:
	_CET_ENDBR
	cmpq	$__NR_sched_setscheduler, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_setparam, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_sched_setattr, %rdi
	je	rtshim_syscall_sched
	cmpq	$__NR_rt_sigaction, %rdi
	je	rtshim_syscall_sigaction
	cmpq	$__NR_prlimit64, %rdi
	je	rtshim_syscall_prlimit
	movq	rtshim_syscall_next(%rip), %rax
	testq	%rax, %rax
	jz	rtshim_raw_syscall
	jmp	*%rax
	.size	syscall, .-syscall

#elif defined(__i386__)
	.text
	.globl	syscall
	.type	syscall, @function
	.hidden	rtshim_syscall_sched
	.hidden	rtshim_syscall_sigaction
	.hidden	rtshim_syscall_prlimit
	.hidden	rtshim_syscall_next
	.hidden	rtshim_raw_syscall
	.p2align 4
syscall:
	_CET_ENDBR
	movl	4(%esp), %eax
	cmpl	$__NR_sched_setscheduler, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_setparam, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_sched_setattr, %eax
	je	rtshim_syscall_sched
	cmpl	$__NR_rt_sigaction, %eax
	je	rtshim_syscall_sigaction
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
#endif

	.section .note.GNU-stack,"",@progbits
