# rtshim — one non-recursive Makefile.  `make`, `make check`, `make demo`, `make bench`,
# `make autopkgtest`, `make install`, `make uninstall`, `make clean`.  Everything is built under build/.
#
# Layout of build/ mirrors an installed tree so the same relative paths work in both:
#   build/bin/rtrun
#   build/lib/<multiarch>/rtshim/librtshim.so, librtshim-client.so
#   build/tests/...   unit tests and probe programs (never installed)

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
CC        ?= cc
# The build machine's own compiler (the GNU name): what "native" means below, whatever $(CC)
# targets (the i386 sub-make's "cc -m32", a cross build's).
CC_FOR_BUILD ?= cc
# Asked once each (:=), not at every use; a sub-make is handed both.
ifndef MULTIARCH
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
endif
ifndef NATIVE_MULTIARCH
NATIVE_MULTIARCH := $(shell $(CC_FOR_BUILD) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
endif
LIBDIR    ?= $(PREFIX)/lib/$(MULTIARCH)
PKGLIBDIR ?= $(LIBDIR)/rtshim
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR   ?=
VERSION   := 0.1.0
NPROC     := $(shell nproc 2>/dev/null || echo 2)

PKG_CONFIG ?= pkg-config
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# -MMD -MP: each object (and program) writes the headers it read into a .d file beside it,
# included at the end, so that a changed header rebuilds what uses it.
DEPFLAGS  := -MMD -MP
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) -fPIC -DRTSHIM_VERSION='"$(VERSION)"' $(DEPFLAGS)
DBUS_CFLAGS := $(shell $(PKG_CONFIG) --cflags dbus-1 2>/dev/null)
DBUS_LIBS   := $(shell $(PKG_CONFIG) --libs dbus-1 2>/dev/null)
UNWIND_CFLAGS := $(shell $(PKG_CONFIG) --cflags libunwind 2>/dev/null)
UNWIND_LIBS   := $(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# SANITIZE=1 builds everything (shim included) with ASan+UBSan into build-asan/;
# SANITIZE=thread with ThreadSanitizer into build-tsan/ (`make SANITIZE=thread tsan`: what the
# TSan test needs).  A sanitized preload library needs its runtime first in LD_PRELOAD.
ifeq ($(SANITIZE),1)
B         ?= build-asan
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),thread)
B         ?= build-tsan
SAN       := -fsanitize=thread -fno-omit-frame-pointer
else
B         ?= build
SAN       :=
endif

LIBOUT    := $(B)/lib/$(MULTIARCH)/rtshim
# Objects and test programs of a foreign architecture (the i386 build) go beside the native ones.
ifeq ($(MULTIARCH),$(NATIVE_MULTIARCH))
TESTOUT   := $(B)/tests
else
TESTOUT   := $(B)/tests/$(MULTIARCH)
endif
SHIM      := $(LIBOUT)/librtshim.so
CLIENT    := $(LIBOUT)/librtshim-client.so
RTRUN     := $(B)/bin/rtrun

# Sources, in layers (a folder includes only the headers of those before it):
#   core/           pure code: the decision core and the loop that carries it out through a table
#                   of operations (carry-out.c), the configuration, the priority and RLIMIT_RTTIME
#                   rules, formatting, rtkit's limits as a type; no system call, no include of
#                   another folder
#   kernel/         the raw system calls (raw-syscall.S) and, on them, the clock and the waits every
#                   bound uses (raw-time.h): what no other preload can wrap
#   daemon-client/  the request client (wire-*.c, rtkit-client.c: libc only), linked into the
#                   shim and rtrun; librtshim-client.so, rtrun --check's doctor (libdbus-1)
#   os/             what touches the system and both the shim and rtrun link: /proc readers,
#                   the seccomp check
#   shim/, wrapper/ librtshim.so (shim/hooks-*.c hold the interposers and init.c the constructor;
#                   the rest of shim/ is the shim's own state, which unit tests may link) and rtrun
# Every .c in tests/probes/ is a probe program, tests/probes/lib*.c a shared library for probes;
# every tests/unit/test-*.c a cmocka test.
KERNEL_SRC := $(wildcard kernel/*.S)
# the request client (D-Bus on its own sockets, libc only): linked into the shim and rtrun
WIRE_SRC   := $(wildcard daemon-client/wire-*.c) daemon-client/rtkit-client.c daemon-client/late-answer.c \
  daemon-client/errors.c daemon-client/portal.c daemon-client/sandbox.c \
  daemon-client/seccomp-probe.c
# librtshim-client.so: rtrun --check's doctor (libdbus-1)
CLIENT_SRC := daemon-client/doctor.c daemon-client/bus-libdbus.c daemon-client/errors.c \
  $(KERNEL_SRC)
CORE_SRC   := $(wildcard core/*.c)
OS_SRC     := $(wildcard os/*.c) $(KERNEL_SRC)
SHIM_SRC   := $(CORE_SRC) $(OS_SRC) $(WIRE_SRC) $(wildcard shim/*.c shim/*.S)
SHIM_PURE  := $(CORE_SRC) $(OS_SRC) $(WIRE_SRC) \
  $(filter-out shim/hooks-% shim/init.c,$(wildcard shim/*.c shim/*.S))
WRAPPER_SRC := $(wildcard wrapper/*.c)
PROBE_SRC  := $(filter-out tests/probes/lib%.c,$(wildcard tests/probes/*.c))
PROBELIB_SRC := $(wildcard tests/probes/lib*.c)
UNIT_SRC   := $(wildcard tests/unit/test-*.c)

obj = $(patsubst %,$(B)/obj/$(MULTIARCH)/%.o,$(basename $(1)))
CLIENT_OBJ := $(call obj,$(CLIENT_SRC))
WIRE_OBJ   := $(call obj,$(WIRE_SRC) $(KERNEL_SRC))
CORE_OBJ   := $(call obj,$(CORE_SRC))
OS_OBJ     := $(call obj,$(OS_SRC))
SHIM_OBJ   := $(call obj,$(SHIM_SRC))
SHIM_PURE_OBJ := $(call obj,$(SHIM_PURE))
WRAPPER_OBJ := $(call obj,$(WRAPPER_SRC))
PROBES     := $(patsubst tests/probes/%.c,$(TESTOUT)/probes/%,$(PROBE_SRC))
PROBELIBS  := $(patsubst tests/probes/%.c,$(TESTOUT)/probes/%.so,$(PROBELIB_SRC))
UNITS      := $(patsubst tests/unit/%.c,$(TESTOUT)/unit/%,$(UNIT_SRC))
# libFuzzer targets (see their rule below); only with clang, never in a SANITIZE build.
FUZZ_CC   ?= clang
FUZZ_FLAGS := -std=gnu11 -D_GNU_SOURCE -g -O1 $(WARN) -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined
FUZZERS   := $(if $(SANITIZE),,$(if $(shell command -v $(FUZZ_CC) 2>/dev/null), \
  $(patsubst tests/fuzz/%.c,$(TESTOUT)/fuzz/%,$(wildcard tests/fuzz/fuzz-*.c))))

.PHONY: all tests tsan check demo build-demo bench autopkgtest install uninstall clean deps i386 \
  i386-all i386-libs i386-shim
all: $(SHIM) $(CLIENT) $(RTRUN)
tests: all $(PROBES) $(PROBELIBS) $(UNITS) $(FUZZERS)
# The ThreadSanitizer tests (tests/bats/checkers.bats): the shim, the client and two probes.
tsan: $(SHIM) $(CLIENT) $(TESTOUT)/probes/herd $(TESTOUT)/probes/shim-script

# The 32-bit shim and client beside the 64-bit ones, so that one LD_PRELOAD value with the
# loader's $LIB token serves both ELF classes: built by `make` (all) and installed by
# `make install` into $(I386_PKGLIBDIR) when an i386 toolchain and libdbus-1-dev:i386 are
# installed (scripts/install-deps); `make tests` adds the 32-bit probes that prove them.
# I386= turns the 32-bit build off (debian/rules: the i386 package is built on its own).
I386_PC   := /usr/lib/i386-linux-gnu/pkgconfig
I386      ?= $(if $(filter x86_64-linux-gnu,$(MULTIARCH)),$(wildcard $(I386_PC)/dbus-1.pc))
I386_PKGLIBDIR ?= $(PREFIX)/lib/i386-linux-gnu/rtshim
I386_MAKE = $(MAKE) --no-print-directory MULTIARCH=i386-linux-gnu CC="$(CC) -m32" \
  NATIVE_MULTIARCH=$(NATIVE_MULTIARCH) \
  PKG_CONFIG_PATH=$(I386_PC) PKG_CONFIG_LIBDIR=$(I386_PC):/usr/share/pkgconfig I386=
# (added here, not on the `all:`/`tests:` lines above: make expands prerequisites where it
# reads them).  i386 waits for i386-all, so two sub-makes never build the same files at once.
all: $(if $(I386),i386-all)
tests: $(if $(I386),i386)
i386-all:
	+@$(I386_MAKE) i386-shim
i386: i386-all
	+@$(I386_MAKE) i386-libs
i386-shim: $(SHIM) $(CLIENT)
i386-libs: $(SHIM) $(CLIENT) $(PROBES) $(PROBELIBS)

$(B)/obj/$(MULTIARCH)/daemon-client/%.o: daemon-client/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -fvisibility=hidden -Icore -Ikernel $(DBUS_CFLAGS) -c -o $@ $<

# The shim must not depend on anything but libc, so it gets no sanitizer runtime unless
# asked for, and hidden visibility: only the interposers are exported (shim/librtshim.map).
$(B)/obj/$(MULTIARCH)/core/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -fvisibility=hidden -c -o $@ $<

$(B)/obj/$(MULTIARCH)/os/%.o: os/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -fvisibility=hidden -Icore -Ikernel -Idaemon-client -c -o $@ $<

$(B)/obj/$(MULTIARCH)/shim/%.o: shim/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -fvisibility=hidden -Icore -Ikernel -Ios -Idaemon-client -c -o $@ $<

# Assembly (kernel/raw-syscall.S, shim/hooks-syscall-entry.S): preprocessed, no sanitizer.
$(B)/obj/$(MULTIARCH)/kernel/%.o: kernel/%.S
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -fPIC $(DEPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/obj/$(MULTIARCH)/shim/%.o: shim/%.S
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -fPIC $(DEPFLAGS) $(CFLAGS) -Ikernel -c -o $@ $<

# The version script, preprocessed for the target (syscall only where the entry exists).
$(B)/obj/$(MULTIARCH)/librtshim.map: shim/librtshim.map kernel/raw-syscall.h
	@mkdir -p $(@D)
	$(CC) -E -P -x assembler-with-cpp -Ikernel -o $@ $<

$(B)/obj/$(MULTIARCH)/wrapper/%.o: wrapper/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -Idaemon-client -Icore -Ikernel -Ios \
	  -DRTSHIM_PKGLIBDIR='"$(PKGLIBDIR)"' -DRTSHIM_MULTIARCH='"$(MULTIARCH)"' -c -o $@ $<

$(SHIM): $(SHIM_OBJ) $(B)/obj/$(MULTIARCH)/librtshim.map
	@mkdir -p $(@D)
	$(CC) -shared $(SAN) $(LDFLAGS) -Wl,--version-script=$(B)/obj/$(MULTIARCH)/librtshim.map -Wl,-z,now -Wl,-z,relro \
	  -Wl,--no-undefined -o $@ $(SHIM_OBJ)

$(CLIENT): $(CLIENT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared $(SAN) $(LDFLAGS) -Wl,-z,now -Wl,-z,relro -Wl,--no-undefined -o $@ $(CLIENT_OBJ) $(DBUS_LIBS)

# rtrun links libc alone (starting a command must not load libdbus-1 and what it pulls in): the
# request client is linked in, and --check's doctor dlopens $(CLIENT) from beside the shim
# (wrapper/client.c).
$(RTRUN): $(WRAPPER_OBJ) $(CORE_OBJ) $(OS_OBJ) $(call obj,$(WIRE_SRC))
	@mkdir -p $(@D)
	$(CC) $(SAN) $(LDFLAGS) -o $@ $^

$(TESTOUT)/probes/lib%.so: tests/probes/lib%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -shared -o $@ $< -pthread

$(TESTOUT)/probes/%: tests/probes/%.c $(PROBELIBS)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -Icore -Idaemon-client -o $@ $< -pthread \
	  -L$(TESTOUT)/probes -Wl,-rpath,'$$ORIGIN' $(shell sed -n 's,^// link: ,,p' $<)

# fake-rtkit answers on a bus as rtkit would (tests/bats/faults.bats): a libdbus-1 program.
$(TESTOUT)/probes/fake-rtkit: tests/probes/fake-rtkit.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) $(DBUS_CFLAGS) -o $@ $< $(DBUS_LIBS)

# rtkit-call drives the request client directly: linked with its objects, so it runs from any
# copy of the build tree (no rpath to a library).
$(TESTOUT)/probes/rtkit-call: tests/probes/rtkit-call.c $(WIRE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -Icore -Idaemon-client -o $@ $< $(WIRE_OBJ) -pthread -ldl

$(TESTOUT)/unit/%: tests/unit/%.c $(sort $(SHIM_PURE_OBJ) $(CLIENT_OBJ))
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(SAN) -Icore -Ikernel -Ios -Ishim -Idaemon-client $(DBUS_CFLAGS) -o $@ $< \
	  $(sort $(SHIM_PURE_OBJ) $(CLIENT_OBJ)) $(UNIT_LINKS_$*) $(CMOCKA_LIBS) $(DBUS_LIBS) -pthread
# (rtrun's unit tests #include the wrapper/*.c they test, rtrun's main() cannot be linked in:
# their .d files name them.)

# libFuzzer targets: tests/fuzz/fuzz-NAME.c -> $(B)/tests/fuzz/fuzz-NAME, built with clang
# (libFuzzer + ASan + UBSan) with the pure shim code they exercise; tests/run runs each for a
# bounded time on a copy of tests/fuzz/corpus/fuzz-NAME/.  Not built without clang, nor in a
# SANITIZE build (they carry their own sanitizers).
$(TESTOUT)/fuzz/fuzz-config: tests/fuzz/fuzz-config.c core/config.c core/format.c shim/log.c os/file-size.c kernel/raw-syscall.S $(wildcard core/*.h shim/*.h os/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Icore -Ishim -Ios -Ikernel -o $@ $(filter %.c %.S,$^)
$(TESTOUT)/fuzz/fuzz-wire: tests/fuzz/fuzz-wire.c daemon-client/wire-message.c daemon-client/wire-message.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Idaemon-client -o $@ $(filter %.c,$^)
$(TESTOUT)/fuzz/fuzz-wire-stream: tests/fuzz/fuzz-wire-stream.c daemon-client/wire-bus.c daemon-client/wire-message.c daemon-client/wire-address.c kernel/raw-syscall.S $(wildcard daemon-client/wire-*.h kernel/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Idaemon-client -Ikernel -o $@ $(filter %.c %.S,$^) -pthread

# Benchmark programs: bench/*.c -> build/bench/ (scripts/bench runs them; never installed,
# never sanitized).  A line `// link: -lfoo` in a source adds link flags, as for probes.
BENCHES := $(patsubst bench/%.c,$(B)/bench/%,$(wildcard bench/*.c))
$(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(DBUS_CFLAGS) -o $@ $< -pthread $(shell sed -n 's,^// link: ,,p' $<)

# Cross builds for arm64, armhf and s390x (`make cross`; make check runs tests/bats/cross.bats on
# them): the shim, rtrun and the probes CROSS_PROBES into $(B)/cross/TRIPLET/, compiled with
# clang for the target against Debian's cross libc (libc6-dev-arm64-cross, ...: gcc-aarch64-linux-gnu
# would conflict with gcc-multilib, which the i386 build needs), linked by the target's binutils.
# The shim carries its D-Bus client.  With a sysroot of the target (scripts/cross-sysroot: its
# libc6-dev and libdbus-1-dev), also librtshim-client.so (--check's doctor) and
# CROSS_GRANT_PROBES, built against it: a grant through the host's rtkit.
CROSS_TARGETS ?= aarch64-linux-gnu arm-linux-gnueabihf s390x-linux-gnu
CROSS_CC_aarch64-linux-gnu := clang --target=aarch64-linux-gnu
CROSS_CC_arm-linux-gnueabihf := clang --target=arm-linux-gnueabihf -march=armv7-a -mthumb -mfpu=vfpv3-d16
# s390x: the big-endian 64-bit one (Debian's baseline, z196)
CROSS_CC_s390x-linux-gnu := clang --target=s390x-linux-gnu -march=z196
CROSS_ARCH_aarch64-linux-gnu := arm64
CROSS_ARCH_arm-linux-gnueabihf := armhf
CROSS_ARCH_s390x-linux-gnu := s390x
CROSS_PROBES := syscall-pass syscall-sched syscall-guard
CROSS_GRANT_PROBES := cyclictest-style rt-busy
RTSHIM_SYSROOT_DIR ?= /var/tmp/rtshim-sysroot
.PHONY: cross cross-sysroots $(addprefix cross-,$(CROSS_TARGETS))
cross: $(addprefix cross-,$(CROSS_TARGETS))
$(addprefix cross-,$(CROSS_TARGETS)): cross-%:
	+@sr=$(RTSHIM_SYSROOT_DIR)-$(CROSS_ARCH_$*); out=$(B)/cross/$*; \
	if [ -e $$sr/.rtshim-complete ]; then \
	  $(MAKE) --no-print-directory B=$$out MULTIARCH=$* CC="$(CROSS_CC_$*) --sysroot=$$sr" I386= \
	    DBUS_CFLAGS="-I$$sr/usr/include/dbus-1.0 -I$$sr/usr/lib/$*/dbus-1.0/include" \
	    DBUS_LIBS="-L$$sr/lib/$* -L$$sr/usr/lib/$* -l:libdbus-1.so.3" $$out/lib/$*/rtshim/librtshim-client.so \
	    $(patsubst %,$$out/tests/$*/probes/%,$(CROSS_GRANT_PROBES)) \
	    $$out/lib/$*/rtshim/librtshim.so $$out/bin/rtrun $(patsubst %,$$out/tests/$*/probes/%,$(CROSS_PROBES)); \
	else \
	  $(MAKE) --no-print-directory B=$$out MULTIARCH=$* CC="$(CROSS_CC_$*)" I386= \
	    DBUS_CFLAGS= DBUS_LIBS= $$out/lib/$*/rtshim/librtshim.so $$out/bin/rtrun \
	    $(patsubst %,$$out/tests/$*/probes/%,$(CROSS_PROBES)); \
	fi
cross-sysroots:
	@scripts/cross-sysroot $(foreach t,$(CROSS_TARGETS),$(CROSS_ARCH_$(t)))

# check, demo and bench install the build dependencies first (deps), then build in a new
# $(MAKE): this one read the Makefile, and ran pkg-config, before deps installed anything.
# INSTALL_DEPS: what deps runs.  BUILD_ONLY=1: stop after building what would run.
INSTALL_DEPS ?= scripts/install-deps
BUILD_ONLY ?=
run_unless_build_only = $(if $(BUILD_ONLY),@true,@$(1))
deps:
	@$(INSTALL_DEPS)

# check: the normal build's suites, then (tests/run's second pass) the ASan+UBSan build's unit
# tests and shim suites; the TSan build for tests/bats/checkers.bats.  BUSY=1: with two CPU-bound
# processes at 50 % each beside the tests (tests/run: RTSHIM_BUSY).
BUSY ?=
check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) tests
	@$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=1 B=build-asan tests
	@$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=thread B=build-tsan tsan
	@$(MAKE) --no-print-directory cross-sysroots
	@$(MAKE) --no-print-directory -j$(NPROC) cross
	$(call run_unless_build_only,B=$(B) RTSHIM_ASAN_BUILD=build-asan RTSHIM_TSAN_BUILD=build-tsan RTSHIM_BUSY=$(BUSY) tests/run)

# demo: what scripts/demo runs (rtrun, the 64-bit shim and client: jackd is 64-bit), quietly;
# compiler errors still show.
demo: deps
	@echo "demo: building rtrun and librtshim.so in $(B)/ ..."
	@$(MAKE) -s --no-print-directory -j$(NPROC) build-demo
	$(call run_unless_build_only,B=$(B) scripts/demo)
build-demo: $(SHIM) $(CLIENT) $(RTRUN)

bench: deps
	@$(MAKE) --no-print-directory -j$(NPROC) tests $(BENCHES)
	$(call run_unless_build_only,B=$(B) scripts/bench)

# autopkgtest: the Debian packages' tests as a distribution's CI runs them (as root): builds the
# .debs from the tracked files, then autopkgtest DEBS SOURCE -- null; see scripts/autopkgtest.
# TESTBED=chroot: in a clean minimal Debian 12 chroot instead (scripts/autopkgtest --chroot).
autopkgtest:
	scripts/autopkgtest $(if $(filter chroot,$(TESTBED)),--chroot)

I386_LIBOUT := $(B)/lib/i386-linux-gnu/rtshim
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(RTRUN) $(DESTDIR)$(BINDIR)/rtrun
	install -m 755 scripts/rtshim-desktop $(DESTDIR)$(BINDIR)/rtshim-desktop
	install -m 644 $(SHIM) $(CLIENT) $(DESTDIR)$(PKGLIBDIR)/
ifneq ($(I386),)
	install -d $(DESTDIR)$(I386_PKGLIBDIR)
	install -m 644 $(I386_LIBOUT)/librtshim.so $(I386_LIBOUT)/librtshim-client.so $(DESTDIR)$(I386_PKGLIBDIR)/
endif
	install -m 644 man/rtrun.1 $(DESTDIR)$(MANDIR)/man1/rtrun.1
	install -m 644 man/rtshim-desktop.1 $(DESTDIR)$(MANDIR)/man1/rtshim-desktop.1
	install -m 644 man/rtshim.7 $(DESTDIR)$(MANDIR)/man7/rtshim.7
	install -m 644 completions/rtrun completions/rtshim-desktop $(DESTDIR)$(BASHCOMPDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rtrun $(DESTDIR)$(BINDIR)/rtshim-desktop $(DESTDIR)$(PKGLIBDIR)/librtshim.so \
	  $(DESTDIR)$(PKGLIBDIR)/librtshim-client.so $(DESTDIR)$(MANDIR)/man1/rtrun.1 $(DESTDIR)$(MANDIR)/man1/rtshim-desktop.1 \
	  $(DESTDIR)$(MANDIR)/man7/rtshim.7 $(DESTDIR)$(BASHCOMPDIR)/rtrun $(DESTDIR)$(BASHCOMPDIR)/rtshim-desktop \
	  $(DESTDIR)$(I386_PKGLIBDIR)/librtshim.so $(DESTDIR)$(I386_PKGLIBDIR)/librtshim-client.so
	-rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(I386_PKGLIBDIR) 2>/dev/null

clean:
	rm -rf build build-asan build-tsan

# the headers each object and program was built from (DEPFLAGS)
-include $(shell find $(B) -name '*.d' 2>/dev/null)
