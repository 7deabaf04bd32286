/* test-rtrun-util.c — rtrun's pure helpers: number and policy parsing, the LD_PRELOAD value
 * (composition, the $LIB form, what ld.so can carry), ELF inspection (dynamic, static, 32-bit,
 * scripts, garbage) and the PATH search.  rtrun's main() cannot be linked in, so the files
 * are included directly. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../wrapper/elf.c"
#include "../../wrapper/preload.c"
#include "../../wrapper/util.c"

static void test_parse_int(void **state)
{
	long long v;

	(void)state;
	assert_int_equal(rtrun_parse_int("10", 1, 99, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(rtrun_parse_int("99", 1, 99, &v), 0);
	assert_int_equal(rtrun_parse_int("1", 1, 99, &v), 0);
	assert_int_equal(rtrun_parse_int("0", 1, 99, &v), -ERANGE);
	assert_int_equal(rtrun_parse_int("100", 1, 99, &v), -ERANGE);
	assert_int_equal(rtrun_parse_int("", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int(NULL, 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int(" 5", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("5 ", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("+5", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("-5", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("5x", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("0x10", 1, 99, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("-5", -10, 10, &v), 0);
	assert_int_equal(v, -5);
	assert_int_equal(rtrun_parse_int("-", -10, 10, &v), -EINVAL);
	assert_int_equal(rtrun_parse_int("9223372036854775807", 0, LLONG_MAX, &v), 0);
	assert_true(v == LLONG_MAX);
	assert_int_equal(rtrun_parse_int("9223372036854775808", 0, LLONG_MAX, &v), -ERANGE);
	assert_int_equal(rtrun_parse_int("-9223372036854775808", LLONG_MIN, 0, &v), 0);
	assert_true(v == LLONG_MIN);
	assert_int_equal(rtrun_parse_int("-9223372036854775809", LLONG_MIN, 0, &v), -ERANGE);
	assert_int_equal(rtrun_parse_int("99999999999999999999999", 1, 99, &v), -ERANGE);
}

static void test_policy(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(rtrun_parse_policy("rr"), SCHED_RR);
	assert_int_equal(rtrun_parse_policy("RR"), SCHED_RR);
	assert_int_equal(rtrun_parse_policy("fifo"), SCHED_FIFO);
	assert_int_equal(rtrun_parse_policy("Fifo"), SCHED_FIFO);
	assert_int_equal(rtrun_parse_policy("other"), -EINVAL);
	assert_int_equal(rtrun_parse_policy(""), -EINVAL);
	assert_int_equal(rtrun_parse_policy(NULL), -EINVAL);
	assert_string_equal(rtrun_policy_text(SCHED_RR | SCHED_RESET_ON_FORK, buf, sizeof buf),
			    "SCHED_RR|SCHED_RESET_ON_FORK");
	assert_string_equal(rtrun_policy_text(SCHED_FIFO, buf, sizeof buf), "SCHED_FIFO");
	assert_string_equal(rtrun_policy_text(SCHED_OTHER, buf, sizeof buf), "SCHED_OTHER");
	assert_string_equal(rtrun_policy_text(0x77, buf, sizeof buf), "policy 0x77");
	assert_string_equal(rtrun_rlim_text(RLIM_INFINITY, buf, sizeof buf), "unlimited");
	assert_string_equal(rtrun_rlim_text(200000, buf, sizeof buf), "200000");
}

#define SHIM_ENTRY "/usr/$LIB/rtshim/librtshim.so"

static void compose_is(const char *old, const char *want)
{
	char *got = rtrun_compose_preload(SHIM_ENTRY, old);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_compose(void **state)
{
	(void)state;
	compose_is(NULL, SHIM_ENTRY);
	compose_is("", SHIM_ENTRY);
	compose_is(" : ::  ", SHIM_ENTRY);
	compose_is("/a/x.so", SHIM_ENTRY ":/a/x.so");
	/* spaces and colons both separate, as in ld.so; order kept */
	compose_is("/a/x.so /b/y.so:/c/z.so", SHIM_ENTRY ":/a/x.so:/b/y.so:/c/z.so");
	compose_is("  /a/x.so::/b/y.so  ", SHIM_ENTRY ":/a/x.so:/b/y.so");
	/* no duplicate: the same entry, or any other copy of the shim, is dropped */
	compose_is(SHIM_ENTRY, SHIM_ENTRY);
	compose_is("/a/x.so:" SHIM_ENTRY " /b/y.so", SHIM_ENTRY ":/a/x.so:/b/y.so");
	compose_is("/opt/old/lib/librtshim.so:/a/x.so", SHIM_ENTRY ":/a/x.so");
	compose_is("librtshim.so", SHIM_ENTRY);
	/* names that only look alike are kept */
	compose_is("/a/xlibrtshim.so:/a/librtshim.so.1:/a/librtshim-client.so",
		   SHIM_ENTRY ":/a/xlibrtshim.so:/a/librtshim.so.1:/a/librtshim-client.so");
}

static void test_compose_long(void **state)
{
	/* many entries, worst-case separators: the buffer bound holds */
	size_t n = 5000;
	char *old = malloc(n * 2 + 1), *got;

	(void)state;
	assert_non_null(old);
	for (size_t i = 0; i < n; i++) {
		old[2 * i] = 'a';
		old[2 * i + 1] = i % 2 ? ' ' : ':';
	}
	old[2 * n] = '\0';
	got = rtrun_compose_preload(SHIM_ENTRY, old);
	assert_non_null(got);
	assert_int_equal(strlen(got), strlen(SHIM_ENTRY) + 2 * n);
	free(got);
	free(old);
}

static void test_pkglibdir(void **state)
{
	char p[PATH_MAX];

	(void)state;
	assert_int_equal(rtrun_prefix_of_pkglibdir("/usr/local/lib/x86_64-linux-gnu/rtshim",
						   "x86_64-linux-gnu", p, sizeof p), 0);
	assert_string_equal(p, "/usr/local");
	assert_int_equal(rtrun_prefix_of_pkglibdir("/usr/lib/x86_64-linux-gnu/rtshim/",
						   "x86_64-linux-gnu", p, sizeof p), 0);
	assert_string_equal(p, "/usr");
	assert_int_equal(rtrun_prefix_of_pkglibdir("/lib/x86_64-linux-gnu/rtshim", "x86_64-linux-gnu",
						   p, sizeof p), 0);
	assert_string_equal(p, "");
	assert_int_equal(rtrun_prefix_of_pkglibdir("/usr/lib64/rtshim", "x86_64-linux-gnu", p,
						   sizeof p), -EINVAL);
	assert_int_equal(rtrun_prefix_of_pkglibdir("/usr/lib/i386-linux-gnu/rtshim",
						   "x86_64-linux-gnu", p, sizeof p), -EINVAL);
	assert_int_equal(rtrun_prefix_of_pkglibdir("/usr/lib/x86_64-linux-gnu/rtshim", "", p,
						   sizeof p), -EINVAL);
	assert_int_equal(rtrun_prefix_of_pkglibdir("/a/very/long/prefix/lib/x/rtshim", "x", p, 4),
			 -ENAMETOOLONG);
}

static void test_entry_ok(void **state)
{
	(void)state;
	assert_true(rtrun_preload_entry_ok("/usr/$LIB/rtshim/librtshim.so"));
	assert_false(rtrun_preload_entry_ok("lib/librtshim.so"));
	assert_false(rtrun_preload_entry_ok("./librtshim.so"));
	assert_false(rtrun_preload_entry_ok("/my dir/librtshim.so"));
	assert_false(rtrun_preload_entry_ok("/my:dir/librtshim.so"));
}

/* An in-memory file with `len` bytes of `data`. */
static int memfile(const void *data, size_t len)
{
	int fd = memfd_create("elf", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	return fd;
}

/* A minimal ELF of the given class with one program header of `phtype`. */
static int fake_elf(int cls, int machine, uint32_t phtype, bool truncate)
{
	unsigned char buf[256] = { 0 };
	size_t len;

	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = (unsigned char)cls;
	buf[EI_DATA] = ELFDATA2LSB;
	buf[EI_VERSION] = EV_CURRENT;
	if (cls == ELFCLASS64) {
		Elf64_Ehdr eh;
		Elf64_Phdr ph = { .p_type = phtype };

		memcpy(&eh, buf, sizeof eh);
		eh.e_type = ET_DYN;
		eh.e_machine = (Elf64_Half)machine;
		eh.e_phoff = sizeof eh;
		eh.e_phentsize = sizeof ph;
		eh.e_phnum = 1;
		memcpy(buf, &eh, sizeof eh);
		memcpy(buf + sizeof eh, &ph, sizeof ph);
		len = sizeof eh + sizeof ph;
	} else {
		Elf32_Ehdr eh;
		Elf32_Phdr ph = { .p_type = phtype };

		memcpy(&eh, buf, sizeof eh);
		eh.e_type = ET_EXEC;
		eh.e_machine = (Elf32_Half)machine;
		eh.e_phoff = sizeof eh;
		eh.e_phentsize = sizeof ph;
		eh.e_phnum = 1;
		memcpy(buf, &eh, sizeof eh);
		memcpy(buf + sizeof eh, &ph, sizeof ph);
		len = sizeof eh + sizeof ph;
	}
	return memfile(buf, truncate ? len - 4 : len);
}

static void test_elf(void **state)
{
	struct rtrun_elf e;
	int fd;

	(void)state;
	/* this very test program: dynamically linked, native */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	close(fd);
	assert_true(e.is_elf);
	assert_true(e.native_endian);
	assert_true(e.has_interp);

	fd = fake_elf(ELFCLASS64, EM_X86_64, PT_INTERP, false);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_true(e.has_interp);
	assert_int_equal(e.elf_class, ELFCLASS64);
	assert_int_equal(e.machine, EM_X86_64);
	close(fd);

	fd = fake_elf(ELFCLASS64, EM_X86_64, PT_LOAD, false); /* static */
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_true(e.is_elf);
	assert_false(e.has_interp);
	close(fd);

	fd = fake_elf(ELFCLASS32, EM_386, PT_INTERP, false);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_int_equal(e.elf_class, ELFCLASS32);
	assert_int_equal(e.machine, EM_386);
	assert_true(e.has_interp);
	assert_string_equal(rtrun_elf_multiarch(e.elf_class, e.machine), "i386-linux-gnu");
	close(fd);

	fd = fake_elf(ELFCLASS64, EM_X86_64, PT_INTERP, true); /* cut short */
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	fd = memfile("\177ELF", 4);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	fd = memfile("hello world, not a program at all", 33);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	fd = memfile("", 0);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	fd = memfile("#!  /bin/sh -e\necho hi\n", 23);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_true(e.is_script);
	assert_false(e.is_elf);
	assert_string_equal(e.interpreter, "/bin/sh");
	close(fd);

	fd = memfile("#!/usr/bin/env python3", 22);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_string_equal(e.interpreter, "/usr/bin/env");
	close(fd);

	assert_int_equal(rtrun_elf_inspect(-1, &e), -EBADF);

	assert_string_equal(rtrun_elf_multiarch(ELFCLASS64, EM_X86_64), "x86_64-linux-gnu");
	assert_string_equal(rtrun_elf_multiarch(ELFCLASS32, EM_X86_64), "x86_64-linux-gnux32");
	assert_null(rtrun_elf_multiarch(ELFCLASS64, 0x7777));
}

/* A 64-bit dynamic ELF whose one PT_NOTE holds one note (name, type, an 8-byte description). */
static int note_elf(const char *name, uint32_t namesz, uint32_t type)
{
	unsigned char buf[512] = { 0 };
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_phoff = sizeof eh,
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = 256, .p_align = 4 };
	uint32_t hdr[3] = { namesz, 8, type };
	size_t at = 256;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	memcpy(buf + at, hdr, sizeof hdr);
	at += sizeof hdr;
	memcpy(buf + at, name, strlen(name));
	at += 4; /* the names here fit in 4 bytes, whatever namesz claims */
	memcpy(buf + at, "build-id", 8);
	ph.p_filesz = at + 8 - 256;
	memcpy(buf, &eh, sizeof eh);
	memcpy(buf + sizeof eh, &ph, sizeof ph);
	return memfile(buf, sizeof buf);
}

/* The Go linker's build ID note marks a Go program (raw system calls); other notes do not. */
static void test_elf_go(void **state)
{
	struct rtrun_elf e;
	int fd;

	(void)state;
	fd = note_elf("Go", 4, 4);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_true(e.go);
	close(fd);
	fd = note_elf("GNU", 4, NT_GNU_BUILD_ID);
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_false(e.go);
	close(fd);
	fd = note_elf("Go", 4, 1); /* another Go note, not the build ID */
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_false(e.go);
	close(fd);
	fd = note_elf("Go", 0xfffffff0u, 4); /* a name size past the segment: not read */
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_false(e.go);
	close(fd);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC); /* this C program */
	assert_int_equal(rtrun_elf_inspect(fd, &e), 0);
	assert_false(e.go);
	close(fd);
}

static void test_corrupt_phdrs(void **state)
{
	unsigned char buf[sizeof(Elf64_Ehdr)] = { 0 };
	Elf64_Ehdr eh;
	struct rtrun_elf e;
	int fd;

	(void)state;
	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = ELFCLASS64;
	buf[EI_DATA] = ELFDATA2LSB;
	memcpy(&eh, buf, sizeof eh);
	eh.e_machine = EM_X86_64;
	eh.e_phoff = UINT64_MAX - 10; /* far outside the file */
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 3;
	fd = memfile(&eh, sizeof eh);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	eh.e_phoff = sizeof eh;
	eh.e_phentsize = 7; /* wrong entry size */
	fd = memfile(&eh, sizeof eh);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);

	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 0xffff; /* more than anybody runs */
	fd = memfile(&eh, sizeof eh);
	assert_int_equal(rtrun_elf_inspect(fd, &e), -ENOEXEC);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_compose),
		cmocka_unit_test(test_compose_long),
		cmocka_unit_test(test_pkglibdir),
		cmocka_unit_test(test_entry_ok),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_elf_go),
		cmocka_unit_test(test_corrupt_phdrs),
	};
	return cmocka_run_group_tests_name("rtrun-util", tests, NULL, NULL);
}
