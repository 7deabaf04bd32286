/* raw-sigaction.h — the kernel's struct sigaction for rt_sigaction (linux/signal_types.h) on x86,
 * arm64 and arm, which all have sa_restorer: the mask is 64 bits in longs (on armhf at offset 12,
 * where a uint64_t would be aligned to 16).  For the shim's own raw rt_sigaction calls, which
 * set and read a disposition exactly as the kernel has it (glibc's sigaction adds its restorer). */
#ifndef RTSHIM_RAW_SIGACTION_H
#define RTSHIM_RAW_SIGACTION_H

struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask[8 / sizeof(unsigned long)];
};

#endif
