/* raw-syscall.S — rtshim_raw_syscall (raw-syscall.h): syscall(3) without going through the
 * dynamic linker, so no interposer of syscall() (the shim's own) stands in between;
 * rtshim_raw_syscall_result: the same argument loading, the kernel's result returned as it is
 * (-errno), errno never written.  It loads
 * every argument slot as libc's syscall() does (glibc's sysdeps/unix/sysv/linux/ARCH/syscall.S):
 * registers on x86_64 and arm64, the caller's stack on i386 (always mapped above the return
 * address), r1-r3 and four words of the caller's stack on arm (EABI: the number goes in r7),
 * r3-r6 and two doublewords of the caller's parameter area on s390x (the number goes in r1). */
#include "asm.h"

#if defined(__x86_64__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, @function
	.p2align 4
rtshim_raw_syscall:
	ENTRY_PAD
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

	.globl	rtshim_raw_syscall_result
	.hidden	rtshim_raw_syscall_result
	.type	rtshim_raw_syscall_result, @function
	.p2align 4
rtshim_raw_syscall_result:
	ENTRY_PAD
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	ret
	.size	rtshim_raw_syscall_result, .-rtshim_raw_syscall_result

#elif defined(__i386__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, @function
	.p2align 4
rtshim_raw_syscall:
	ENTRY_PAD
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

	.globl	rtshim_raw_syscall_result
	.hidden	rtshim_raw_syscall_result
	.type	rtshim_raw_syscall_result, @function
	.p2align 4
rtshim_raw_syscall_result:
	ENTRY_PAD
	pushl	%ebp
	pushl	%edi
	pushl	%esi
	pushl	%ebx
	movl	20(%esp), %eax
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
	ret
	.size	rtshim_raw_syscall_result, .-rtshim_raw_syscall_result

#elif defined(__aarch64__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, %function
	.p2align 4
rtshim_raw_syscall:
	ENTRY_PAD
	uxtw	x8, w0			/* the number, as glibc reads it; the arguments one register down */
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	mov	x5, x6
	mov	x6, x7
	svc	#0
	cmn	x0, #4095
	b.cs	1f
	ret
1:	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	neg	w0, w0
	str	w0, [sp, #16]		/* the errno value, across the call */
	bl	__errno_location
	ldr	w1, [sp, #16]
	str	w1, [x0]
	mov	x0, #-1
	ldp	x29, x30, [sp], #32
	ret
	.size	rtshim_raw_syscall, .-rtshim_raw_syscall

	.globl	rtshim_raw_syscall_result
	.hidden	rtshim_raw_syscall_result
	.type	rtshim_raw_syscall_result, %function
	.p2align 4
rtshim_raw_syscall_result:
	ENTRY_PAD
	uxtw	x8, w0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	mov	x5, x6
	mov	x6, x7
	svc	#0
	ret
	.size	rtshim_raw_syscall_result, .-rtshim_raw_syscall_result

#elif defined(__arm__) && defined(__ARM_EABI__)
	.syntax	unified
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, %function
	.p2align 2
#ifdef __thumb2__
	.thumb
	.thumb_func
#else
	.arm
#endif
rtshim_raw_syscall:
	mov	ip, sp			/* the fourth to seventh arguments are on the caller's stack */
	push	{r4, r5, r6, r7}
	mov	r7, r0
	mov	r0, r1
	mov	r1, r2
	mov	r2, r3
	ldm	ip, {r3, r4, r5, r6}
	svc	#0
	pop	{r4, r5, r6, r7}
	cmn	r0, #4096
	it	cc
	bxcc	lr
	rsb	r0, r0, #0
	push	{r0, lr}		/* the errno value; 8-byte aligned at the call */
	bl	__errno_location
	pop	{r1, lr}
	str	r1, [r0]
	mvn	r0, #0
	bx	lr
	.size	rtshim_raw_syscall, .-rtshim_raw_syscall

	.globl	rtshim_raw_syscall_result
	.hidden	rtshim_raw_syscall_result
	.type	rtshim_raw_syscall_result, %function
	.p2align 2
#ifdef __thumb2__
	.thumb
	.thumb_func
#else
	.arm
#endif
rtshim_raw_syscall_result:
	mov	ip, sp
	push	{r4, r5, r6, r7}
	mov	r7, r0
	mov	r0, r1
	mov	r1, r2
	mov	r2, r3
	ldm	ip, {r3, r4, r5, r6}
	svc	#0
	pop	{r4, r5, r6, r7}
	bx	lr
	.size	rtshim_raw_syscall_result, .-rtshim_raw_syscall_result

#elif defined(__s390x__)
	.text
	.globl	rtshim_raw_syscall
	.hidden	rtshim_raw_syscall
	.type	rtshim_raw_syscall, @function
	.p2align 3
rtshim_raw_syscall:
	stmg	%r6,%r7,48(%r15)	/* callee-saved, in the caller's register save area */
	lgr	%r1,%r2			/* number; then the arguments one register down */
	lgr	%r2,%r3
	lgr	%r3,%r4
	lgr	%r4,%r5
	lgr	%r5,%r6
	lg	%r6,160(%r15)		/* the fifth and sixth: the caller's parameter area */
	lg	%r7,168(%r15)
	svc	0
	lmg	%r6,%r7,48(%r15)
	lghi	%r0,-4095
	clgr	%r2,%r0
	jhe	1f
	br	%r14
1:	stmg	%r13,%r15,104(%r15)
	lcr	%r13,%r2		/* the errno value, across the call */
	lgr	%r1,%r15
	aghi	%r15,-160		/* a frame of our own, its back chain */
	stg	%r1,0(%r15)
	brasl	%r14,__errno_location@PLT
	st	%r13,0(%r2)
	lghi	%r2,-1
	lmg	%r13,%r15,264(%r15)
	br	%r14
	.size	rtshim_raw_syscall, .-rtshim_raw_syscall

	.globl	rtshim_raw_syscall_result
	.hidden	rtshim_raw_syscall_result
	.type	rtshim_raw_syscall_result, @function
	.p2align 3
rtshim_raw_syscall_result:
	stmg	%r6,%r7,48(%r15)
	lgr	%r1,%r2
	lgr	%r2,%r3
	lgr	%r3,%r4
	lgr	%r4,%r5
	lgr	%r5,%r6
	lg	%r6,160(%r15)
	lg	%r7,168(%r15)
	svc	0
	lmg	%r6,%r7,48(%r15)
	br	%r14
	.size	rtshim_raw_syscall_result, .-rtshim_raw_syscall_result
#endif

	.section .note.GNU-stack,"",%progbits
