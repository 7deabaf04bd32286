/* elf.c — what the dynamic loader will make of a command: ELF class and machine, and whether
 * it has a PT_INTERP (no PT_INTERP: statically linked, LD_PRELOAD never applies) and a
 * sanitizer runtime that must be loaded first, or the interpreter of a "#!" script.  Reads with pread only; no global state. */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrun.h"

/* More program headers than this is not a program anybody runs. */
#define MAX_PHNUM 4096

static int read_all(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOEXEC;
}

static int script_interpreter(int fd, struct rtrun_elf *out)
{
	char line[PATH_MAX + 64];
	ssize_t n = pread(fd, line, sizeof line - 1, 0);
	size_t i = 2, start, len;

	if (n < 0)
		return -errno;
	line[n] = '\0';
	out->is_script = true;
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	start = i;
	while (line[i] && line[i] != ' ' && line[i] != '\t' && line[i] != '\n')
		i++;
	len = i - start;
	if (len >= sizeof out->interpreter)
		len = 0;
	memcpy(out->interpreter, line + start, len);
	out->interpreter[len] = '\0';
	return 0;
}

/* A Go program's build ID note (name "Go", type 4: the Go linker's ELF_NOTE_GOBUILDID_TAG) in
 * one PT_NOTE segment: Go's runtime makes its system calls itself, not through libc.  Only the
 * first 4 KiB of the segment are read: the Go note is small and comes early. */
static bool go_note(int fd, uint64_t off, uint64_t size, uint64_t align)
{
	unsigned char buf[4096];
	size_t len = size < sizeof buf ? (size_t)size : sizeof buf, at = 0;
	size_t a = align == 8 ? 8 : 4;

	if (off > (uint64_t)INT64_MAX / 2 || read_all(fd, buf, len, (off_t)off) < 0)
		return false;
	while (at + 12 <= len) {
		uint32_t w[3];

		memcpy(w, buf + at, sizeof w);
		size_t name = at + 12, desc = name + (((size_t)w[0] + a - 1) & ~(a - 1));
		if (w[0] > len || w[1] > len || desc > len)
			return false;
		if (w[2] == 4 && (w[0] == 3 || w[0] == 4) && memcmp(buf + name, "Go", 3) == 0)
			return true;
		at = desc + (((size_t)w[1] + a - 1) & ~(a - 1));
	}
	return false;
}

/* One program header, whichever the ELF class. */
struct phdr {
	uint32_t type;
	uint64_t offset, vaddr, filesz, align;
};

static void phdr_at(const struct rtrun_elf *e, const unsigned char *at, struct phdr *out)
{
	if (e->elf_class == ELFCLASS64) {
		Elf64_Phdr ph;

		memcpy(&ph, at, sizeof ph);
		*out = (struct phdr){ ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_align };
	} else {
		Elf32_Phdr ph;

		memcpy(&ph, at, sizeof ph);
		*out = (struct phdr){ ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_align };
	}
}

/* Sanitizer runtimes that refuse to run unless they are the first library the loader loads
 * (ASan: "ASan runtime does not come first in initial library list"). */
static bool first_only_runtime(const char *name)
{
	static const char *const runtimes[] = { "libasan.so", "libhwasan.so" };

	for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++)
		if (strncmp(name, runtimes[i], strlen(runtimes[i])) == 0)
			return true;
	return false;
}

/* The file offset of virtual address `addr`, through the PT_LOAD segments; false if none
 * holds it. */
static bool file_offset(const unsigned char *ph, size_t phentsize, size_t phnum,
			const struct rtrun_elf *e, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < phnum; i++) {
		struct phdr p;

		phdr_at(e, ph + i * phentsize, &p);
		if (p.type == PT_LOAD && addr >= p.vaddr && addr - p.vaddr < p.filesz) {
			*off = p.offset + (addr - p.vaddr);
			return true;
		}
	}
	return false;
}

/* Which sanitizer runtime of first_only_runtime() the program's DT_NEEDED entries name, into
 * out->first_library (empty when none).  What cannot be read is no sanitizer. */
static void needed_runtime(int fd, struct rtrun_elf *out, const unsigned char *ph,
			   size_t phentsize, size_t phnum, const struct phdr *dyn)
{
	size_t entsize = out->elf_class == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	size_t n = dyn->filesz / entsize, count = 0;
	uint64_t needed[32], strtab = 0, strsz = 0, stroff;
	unsigned char *buf;

	if (n > 4096)
		n = 4096;
	buf = malloc(n * entsize + 1);
	if (!buf || dyn->offset > (uint64_t)INT64_MAX / 2 ||
	    read_all(fd, buf, n * entsize, (off_t)dyn->offset) < 0) {
		free(buf);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t tag, val;

		if (out->elf_class == ELFCLASS64) {
			Elf64_Dyn d;

			memcpy(&d, buf + i * entsize, sizeof d);
			tag = (uint64_t)d.d_tag, val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;

			memcpy(&d, buf + i * entsize, sizeof d);
			tag = (uint64_t)(uint32_t)d.d_tag, val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		if (tag == DT_NEEDED && count < sizeof needed / sizeof needed[0])
			needed[count++] = val;
		else if (tag == DT_STRTAB)
			strtab = val;
		else if (tag == DT_STRSZ)
			strsz = val;
	}
	free(buf);
	if (!strtab || !file_offset(ph, phentsize, phnum, out, strtab, &stroff) ||
	    stroff > (uint64_t)INT64_MAX / 2)
		return;
	for (size_t i = 0; i < count; i++) {
		char name[sizeof out->first_library];
		ssize_t got;

		if (needed[i] >= strsz)
			continue;
		got = pread(fd, name, sizeof name - 1, (off_t)(stroff + needed[i]));
		if (got <= 0)
			continue;
		name[got] = '\0';
		if (strlen(name) < (size_t)got && first_only_runtime(name)) {
			memcpy(out->first_library, name, strlen(name) + 1);
			return;
		}
	}
}

static int scan_phdrs(int fd, struct rtrun_elf *out, uint64_t phoff, size_t phentsize,
		      size_t phnum)
{
	size_t want = out->elf_class == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	struct phdr dyn = { 0 };
	unsigned char *buf;
	int r;

	if (phnum == 0)
		return 0;
	if (phentsize != want || phnum > MAX_PHNUM || phoff > (uint64_t)INT64_MAX / 2)
		return -ENOEXEC;
	buf = malloc(phnum * phentsize);
	if (!buf)
		return -ENOMEM;
	r = read_all(fd, buf, phnum * phentsize, (off_t)phoff);
	for (size_t i = 0; r == 0 && i < phnum; i++) {
		struct phdr p;

		phdr_at(out, buf + i * phentsize, &p);
		if (p.type == PT_INTERP)
			out->has_interp = true;
		if (p.type == PT_DYNAMIC)
			dyn = p;
		if (p.type == PT_NOTE && !out->go)
			out->go = go_note(fd, p.offset, p.filesz, p.align);
	}
	if (r == 0 && dyn.type == PT_DYNAMIC)
		needed_runtime(fd, out, buf, phentsize, phnum, &dyn);
	free(buf);
	return r;
}

int rtrun_elf_inspect(int fd, struct rtrun_elf *out)
{
	unsigned char ident[EI_NIDENT];
	ssize_t n;

	memset(out, 0, sizeof *out);
	n = pread(fd, ident, sizeof ident, 0);
	if (n < 0)
		return -errno;
	if (n >= 2 && ident[0] == '#' && ident[1] == '!')
		return script_interpreter(fd, out);
	if ((size_t)n < sizeof ident || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;

	out->is_elf = true;
	out->elf_class = ident[EI_CLASS];
#if __BYTE_ORDER == __LITTLE_ENDIAN
	out->native_endian = ident[EI_DATA] == ELFDATA2LSB;
#else
	out->native_endian = ident[EI_DATA] == ELFDATA2MSB;
#endif
	if (!out->native_endian)
		return 0; /* a foreign program: nothing more to learn that matters here */

	if (out->elf_class == ELFCLASS64) {
		Elf64_Ehdr eh;
		int r = read_all(fd, &eh, sizeof eh, 0);

		if (r < 0)
			return r;
		out->machine = eh.e_machine;
		return scan_phdrs(fd, out, eh.e_phoff, eh.e_phentsize, eh.e_phnum);
	}
	if (out->elf_class == ELFCLASS32) {
		Elf32_Ehdr eh;
		int r = read_all(fd, &eh, sizeof eh, 0);

		if (r < 0)
			return r;
		out->machine = eh.e_machine;
		return scan_phdrs(fd, out, eh.e_phoff, eh.e_phentsize, eh.e_phnum);
	}
	return -ENOEXEC;
}

const char *rtrun_elf_multiarch(int elf_class, int machine)
{
	switch (machine) {
	case EM_386:
		return "i386-linux-gnu";
	case EM_X86_64:
		return elf_class == ELFCLASS64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32";
	case EM_AARCH64:
		return "aarch64-linux-gnu";
	case EM_ARM:
		return "arm-linux-gnueabihf";
	case EM_RISCV:
		return elf_class == ELFCLASS64 ? "riscv64-linux-gnu" : NULL;
	case EM_PPC64:
		return "powerpc64le-linux-gnu";
	case EM_S390:
		return "s390x-linux-gnu";
	default:
		return NULL;
	}
}
