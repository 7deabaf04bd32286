/* raw-syscall.S — rtshim_raw_syscall (raw-syscall.h): syscall(3) without going through the
 * dynamic linker, so no interposer of syscall() (the shim's own) stands in between.  It loads
 * all six argument slots as libc's syscall() does: registers on x86_64, the caller's stack on
 * i386 (always mapped above the return address). */
#ifdef __CET__
#include <cet.h>
#else
#define _CET_ENDBR
#endif

#if defined(__x86_64__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, @function
	.p2align 4
rtshim_raw_syscall:
	_CET_ENDBR
	movq	%rdi, %rax		/* number; then the arguments one register down */
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	cmpq	$-4095, %rax
	jae	1f
	ret
1:	negl	%eax
	pushq	%rax			/* keeps the errno value, aligns the stack for the call */
	call	__errno_location@PLT
	popq	%rcx
	movl	%ecx, (%rax)
	orq	$-1, %rax
	ret
	.size	rtshim_raw_syscall, .-rtshim_raw_syscall

#elif defined(__i386__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, @function
	.p2align 4
rtshim_raw_syscall:
	_CET_ENDBR
	pushl	%ebp
	pushl	%edi
	pushl	%esi
	pushl	%ebx
	movl	20(%esp), %eax		/* number, past the four saved registers and the return */
	movl	24(%esp), %ebx
	movl	28(%esp), %ecx
	movl	32(%esp), %edx
	movl	36(%esp), %esi
	movl	40(%esp), %edi
	movl	44(%esp), %ebp
	int	$0x80
	popl	%ebx
	popl	%esi
	popl	%edi
	popl	%ebp
	cmpl	$-4095, %eax
	jae	1f
	ret
1:	negl	%eax
	pushl	%ebx			/* callee-saved; the PLT call needs the GOT in it */
	pushl	%eax			/* the errno value */
	call	.Lpc_ebx		/* a call that returns: shadow stack and return predictor */
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	subl	$4, %esp		/* 16-byte aligned at the call */
	call	__errno_location@PLT
	addl	$4, %esp
	popl	%ecx
	movl	%ecx, (%eax)
	popl	%ebx
	movl	$-1, %eax
	ret
.Lpc_ebx:
	movl	(%esp), %ebx
	ret
	.size	rtshim_raw_syscall, .-rtshim_raw_syscall
#endif

	.section .note.GNU-stack,"",@progbits
