/* trace.c — RTSHIM_TRACE and RTSHIM_ONLY: the caller's stack (see trace.h).
 * Costs nothing unless one of them is set: then each intercepted request takes the caller's
 * stack (libunwind, loaded by the shim's constructor) and names its frames from /proc/self/maps
 * and the files' symbol tables.  Never the dynamic loader's lock (dlopen, dladdr): a library
 * constructor run by dlopen may hold it while it waits for the requesting thread. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "procfs.h"
#include "settings.h"
#include "trace.h"

typedef int backtrace_fn(void **buffer, int size);

static pthread_once_t unwinder_once = PTHREAD_ONCE_INIT;
static backtrace_fn *unwinder;
static uintptr_t own_base;

static void load_unwinder(void)
{
	char path[PATH_MAX];
	rtshim_proc_mapped_path((const void *)rtshim_trace_left_alone, path, sizeof path, &own_base);
	/* RTLD_LOCAL: libunwind's own weak `backtrace` must not interpose glibc's */
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h)
		unwinder = (backtrace_fn *)dlsym(h, "unw_backtrace");
	if (!unwinder) {
		rtshim_log_once(RTSHIM_LOG_WARN, 0,
				"RTSHIM_TRACE/RTSHIM_ONLY: libunwind (libunwind.so.8) cannot be loaded; using glibc's backtrace()");
		unwinder = backtrace;
		void *warm[2];
		backtrace(warm, 2); /* it loads libgcc_s (dlopen) on its first call: now */
	} else {
		rtshim_log(RTSHIM_LOG_DEBUG, "stacks taken with libunwind");
	}
}

#if __SIZEOF_POINTER__ == 8
#define ELFCLASS ELFCLASS64
#else
#define ELFCLASS ELFCLASS32
#endif

/* The function around pc, from the file's symbol tables: .symtab (static functions, an
 * executable's own, as gdb names them) or, in a stripped file, .dynsym (what it exports).
 * false when neither names it. */
static bool symtab_name(const char *file, uintptr_t base, const char *pc, char *name,
			size_t size, unsigned long *off)
{
	bool found = false;
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	void *map = fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(ElfW(Ehdr))
			    ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
			    : MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		return false;
	const char *img = map, *end = img + st.st_size;
	const ElfW(Ehdr) *eh = map;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(img + eh->e_shoff);
	/* a shared object's (or PIE's) symbols are relative to where it was loaded */
	uintptr_t at = (uintptr_t)pc - (eh->e_type == ET_DYN ? base : 0);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS ||
	    eh->e_shentsize != sizeof *sh || (const char *)(sh + eh->e_shnum) > end)
		goto out;
	for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) ||
		    sh[i].sh_link >= eh->e_shnum)
			continue;
		const ElfW(Sym) *sym = (const ElfW(Sym) *)(img + sh[i].sh_offset);
		const char *str = img + sh[sh[i].sh_link].sh_offset;
		size_t n = sh[i].sh_size / sizeof *sym;
		if ((const char *)(sym + n) > end)
			continue;
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || at < sym[k].st_value ||
			    at >= sym[k].st_value + sym[k].st_size || str + sym[k].st_name >= end)
				continue;
			rtshim_format(name, size, "%.*s", (int)(end - (str + sym[k].st_name)),
				      str + sym[k].st_name);
			*off = (unsigned long)(at - sym[k].st_value);
			found = true;
			break;
		}
	}
out:
	munmap(map, (size_t)st.st_size);
	return found;
}

void rtshim_trace_init(void)
{
	pthread_once(&unwinder_once, load_unwinder);
}

bool rtshim_trace_wanted(void)
{
	return rtshim_trace_wanted_by(rtshim_cfg());
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path && *path ? path : "?");
}

void rtshim_trace_take_stack(struct rtshim_stack *s)
{
	rtshim_trace_init(); /* done by the constructor, unless a library's constructor asked first */
	s->n = unwinder(s->pcs, (int)(sizeof s->pcs / sizeof s->pcs[0]));
}

static bool begin(struct rtshim_trace *t, const struct rtshim_stack *s, const char *fmt, va_list ap)
{
	const struct rtshim_config *c = rtshim_cfg();
	int i, shown = 0;
	bool match = false;

	t->on = c->trace;
	t->pass = false;
	rtshim_vformat(t->what, sizeof t->what, fmt, ap);
	if (!t->on && !c->only[0])
		return false;

	if (t->on)
		rtshim_log(RTSHIM_LOG_WARN, "trace: thread %d: %s, called from:", (int)gettid(), t->what);
	for (i = 0; i < s->n && shown < RTSHIM_STACK_MAX; i++) {
		char file[PATH_MAX];
		uintptr_t base;
		/* a return address: look up the call instruction before it */
		const char *pc = (const char *)s->pcs[i] - (i > 0 ? 1 : 0);
		if (rtshim_proc_mapped_path(pc, file, sizeof file, &base) < 0) {
			if (t->on)
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d ? [%p]", shown, s->pcs[i]);
			shown++;
			continue;
		}
		if (base == own_base)
			continue; /* the shim's own frames */
		const char *lib = base_name(file);
		if (c->only[0] && rtshim_only_match(c->only, lib))
			match = true;
		if (t->on) {
			char name[128];
			unsigned long off;
			if (symtab_name(file, base, pc, name, sizeof name, &off))
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d %s %s+0x%lx [%p]", shown, lib,
					   name, off, s->pcs[i]);
			else
				rtshim_log(RTSHIM_LOG_WARN, "trace:   #%d %s +0x%lx [%p]", shown, lib,
					   (unsigned long)((uintptr_t)pc - base), s->pcs[i]);
		}
		shown++;
	}
	t->pass = c->only[0] && !match;
	return t->pass;
}

bool rtshim_trace_left_alone_with(struct rtshim_trace *t, const struct rtshim_stack *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool pass = begin(t, s, fmt, ap);
	va_end(ap);
	return pass;
}

bool rtshim_trace_left_alone(struct rtshim_trace *t, const char *fmt, ...)
{
	struct rtshim_stack s = { .n = 0 };
	va_list ap;
	if (rtshim_trace_wanted())
		rtshim_trace_take_stack(&s);
	va_start(ap, fmt);
	bool pass = begin(t, &s, fmt, ap);
	va_end(ap);
	return pass;
}

void rtshim_trace_end(const struct rtshim_trace *t, int err)
{
	if (!t->on)
		return;
	const char *name = err ? rtshim_errno_name(err) : "OK";
	if (t->pass)
		rtshim_log(RTSHIM_LOG_WARN,
			   "trace: thread %d: %s → passed through unchanged (no frame matches RTSHIM_ONLY): %s",
			   (int)gettid(), t->what, name ? name : "error");
	else
		rtshim_log(RTSHIM_LOG_WARN, "trace: thread %d: %s → %s", (int)gettid(), t->what,
			   name ? name : "error");
}
