/* elf.c — what the dynamic loader will make of a command: ELF class and machine, and whether
 * it has a PT_INTERP (no PT_INTERP: statically linked, LD_PRELOAD never applies), or the
 * interpreter of a "#!" script.  Reads with pread only; no global state. */
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

static int scan_phdrs(int fd, struct rtrun_elf *out, uint64_t phoff, size_t phentsize,
		      size_t phnum)
{
	size_t want = out->elf_class == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
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
		uint32_t type;

		/* p_type is the first 32-bit field of both layouts. */
		memcpy(&type, buf + i * phentsize, sizeof type);
		if (type == PT_INTERP)
			out->has_interp = true;
		if (type == PT_NOTE && !out->go) {
			if (out->elf_class == ELFCLASS64) {
				Elf64_Phdr ph;

				memcpy(&ph, buf + i * phentsize, sizeof ph);
				out->go = go_note(fd, ph.p_offset, ph.p_filesz, ph.p_align);
			} else {
				Elf32_Phdr ph;

				memcpy(&ph, buf + i * phentsize, sizeof ph);
				out->go = go_note(fd, ph.p_offset, ph.p_filesz, ph.p_align);
			}
		}
	}
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
