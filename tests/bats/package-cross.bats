#!/usr/bin/env bats
# The 32-bit builds as Debian makes them: debian/rules compiles with 64-bit file offsets
# (future=+lfs; armhf on Debian 13 also with 64-bit time_t), under which glibc's headers turn
# getrlimit into getrlimit64.  The i386 package cross-builds (README's dpkg-buildpackage -a i386
# -Pcross,nocheck); the i386 and armhf shims, with and without those flags, export getrlimit and
# getrlimit64 (setrlimit, prlimit) as two interposers each, exactly the version script's list.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	WORK=$(mktemp -d /tmp/rtshim-package-cross.XXXXXX)
	export WORK
}

teardown_file() {
	if [[ -n ${WORK:-} ]]; then rm -rf "$WORK"; fi
}

# The interposers the version script lists, syscall included (both 32-bit targets define it).
listed() {
	{ cc -E -P -x assembler-with-cpp -I"$RTSHIM_ROOT/kernel" "$RTSHIM_ROOT/shim/librtshim.map" |
		sed -n 's/^[[:space:]]*\([a-z_0-9]*\);$/\1/p'; echo syscall; } | sort -u | tr '\n' ' '
}

# check_exports SHIM: its defined dynamic symbols are exactly the listed ones, and getrlimit,
# setrlimit and prlimit are functions of their own beside their 64-bit names.
check_exports() {
	local syms n
	run -0 nm -D --defined-only "$1"
	syms=$(awk '{ print $3 }' <<<"$output" | sort | tr '\n' ' ')
	echo "$1: $syms"
	[ "$syms" = "$(listed)" ]
	for n in getrlimit setrlimit prlimit; do
		[ "$(awk -v n="$n" '$3 == n { print $1 }' <<<"$output")" != \
			"$(awk -v n="${n}64" '$3 == n { print $1 }' <<<"$output")" ]
	done
}

# copy_tree DIR: the source files of this tree (tracked files of a checkout; otherwise all but
# the build trees) in DIR.
copy_tree() {
	mkdir -p "$1"
	if git -C "$RTSHIM_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$RTSHIM_ROOT" ls-files -z | tar -C "$RTSHIM_ROOT" --null -T - -c | tar -x -C "$1"
	else
		tar -C "$RTSHIM_ROOT" --exclude='./build*' -c . | tar -x -C "$1"
	fi
}

@test "the i386 and armhf shims with and without 64-bit file offsets and time export each rlimit interposer once" {
	local flags t s i=0
	printf '#include <sys/resource.h>\nint main(void) { return 0; }\n' | gcc -m32 -x c -o /dev/null - ||
		skip "no i386 toolchain (gcc-multilib: scripts/install-deps)"
	[[ -d /usr/arm-linux-gnueabihf/include ]] || skip "no armhf cross libc (libc6-dev-armhf-cross: scripts/install-deps)"
	for flags in "" "-D_FILE_OFFSET_BITS=64" "-D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64"; do
		t=$WORK/b$((i++))
		run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$t/i386" MULTIARCH=i386-linux-gnu \
			CC="gcc -m32" I386= DBUS_CFLAGS= DBUS_LIBS= CFLAGS="-O2 $flags" "$t/i386/lib/i386-linux-gnu/rtshim/librtshim.so"
		s=$t/i386/lib/i386-linux-gnu/rtshim/librtshim.so
		run -0 file -L "$s"
		[[ $output =~ 32-bit.*Intel\ (80386|i386) ]] # file 5.44 (Debian 12) and 5.46 (Debian 13)
		check_exports "$s"
		run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$t" CFLAGS="-O2 $flags" \
			cross-arm-linux-gnueabihf
		s=$t/cross/arm-linux-gnueabihf/lib/arm-linux-gnueabihf/rtshim/librtshim.so
		run -0 file -L "$s"
		[[ $output == *"32-bit"*"ARM, EABI5"* ]]
		check_exports "$s"
	done
}

@test "the i386 package cross-builds (dpkg-buildpackage -a i386 -Pcross,nocheck): librtshim:i386's shim is 32-bit with exactly its interposers" {
	local src=$WORK/pkg/rtshim d=$WORK/pkg/x
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
		skip "no dpkg-buildpackage or debhelper (scripts/install-deps)"
	command -v i686-linux-gnu-objdump >/dev/null || skip "no binutils-i686-linux-gnu (scripts/install-deps)"
	dpkg-query -W -f='${db:Status-Status}\n' libdbus-1-dev:i386 2>/dev/null | grep -qx installed ||
		skip "no libdbus-1-dev:i386 (scripts/install-deps)"
	copy_tree "$src"
	run env -u MAKEFLAGS -u MAKELEVEL -u B -u MULTIARCH -C "$src" dpkg-buildpackage -us -uc -B -a i386 -Pcross,nocheck
	echo "$output" | tail -n 30
	[ "$status" -eq 0 ]
	run -0 dpkg-deb -x "$WORK"/pkg/librtshim_*_i386.deb "$d"
	check_exports "$d/usr/lib/i386-linux-gnu/rtshim/librtshim.so"
	run -0 file -L "$d/usr/lib/i386-linux-gnu/rtshim/librtshim.so" "$d/usr/lib/i386-linux-gnu/rtshim/librtshim-client.so"
	(($(grep -Ec '32-bit.*Intel (80386|i386)' <<<"$output") == 2))
}
