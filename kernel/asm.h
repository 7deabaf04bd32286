/* asm.h — for the assembly files (kernel/raw-syscall.S, shim/hooks-syscall-entry.S): the landing
 * pad that starts every entry another object may branch to, so that a library built with
 * control-flow protection keeps it (x86's CET: endbr, and cet.h's note; arm64's BTI: `bti c`, a
 * no-op on older cores, and the note saying the object has them: one object without it and the
 * linker marks the whole library unprotected). */
#ifndef RTSHIM_ASM_H
#define RTSHIM_ASM_H

#if defined(__x86_64__) || defined(__i386__)
#ifdef __CET__
#include <cet.h>
#define ENTRY_PAD _CET_ENDBR
#else
#define ENTRY_PAD
#endif

#elif defined(__aarch64__)
#define ENTRY_PAD hint 34 /* bti c */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.long	4		/* name size */
	.long	16		/* descriptor size */
	.long	5		/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.long	0xc0000000	/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.long	4
	.long	1		/* GNU_PROPERTY_AARCH64_FEATURE_1_BTI */
	.long	0
	.popsection
#endif

#else
#define ENTRY_PAD
#endif

#endif
