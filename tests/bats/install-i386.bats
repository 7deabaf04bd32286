#!/usr/bin/env bats
# `make install` from source serves 32-bit programs as the Debian packages do: with an i386
# toolchain and libdbus-1-dev:i386 (scripts/install-deps), `make` builds the i386 shim and client
# and `make install` puts them in PREFIX/lib/i386-linux-gnu/rtshim/, where the installed rtrun's
# LD_PRELOAD=PREFIX/$LIB/rtshim/librtshim.so finds them; `make uninstall` removes them.  A
# kernel without IA32 emulation cannot execute a 32-bit program: the probe then runs under
# qemu-user (qemu-i386, whose threads are the host's threads: the grant is read from the kernel).

bats_require_minimum_version 1.5.0
load common

I386_PROBES=$B/tests/i386-linux-gnu/probes

setup_file() {
	[[ -x $I386_PROBES/cyclictest-style ]] || return 0
	tb_start
	WORK=$(mktemp -d /tmp/rtshim-install.XXXXXX)
	chmod 755 "$WORK"
	export WORK
	# Can this kernel run 32-bit programs at all (IA32 emulation)?
	printf 'int main(void) { return 0; }\n' >"$WORK/true32.c"
	cc -m32 -o "$WORK/true32" "$WORK/true32.c"
	if "$WORK/true32" 2>/dev/null; then IA32=1; else IA32=; fi
	QEMU_I386=$(command -v qemu-i386-static || command -v qemu-i386 || true)
	export IA32 QEMU_I386
}

teardown_file() {
	tb_stop
	if [[ -n ${WORK:-} ]]; then rm -rf "$WORK"; fi
}

setup() {
	[[ -x $I386_PROBES/cyclictest-style ]] ||
		skip "no 32-bit probes: no i386 toolchain or libdbus-1-dev:i386 (scripts/install-deps)"
}

teardown() {
	[[ -n ${HOLD:-} ]] && exec 8>&-
	[[ -n ${BG:-} ]] && { wait "$BG" || true; }
	return 0
}

@test "make install DESTDIR=... installs the shim and client of both architectures; uninstall removes them" {
	local b=$WORK/ibuild d=$WORK/dest a f
	run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$b" DESTDIR="$d" PREFIX=/opt/rtshim install
	run -0 find "$d" -name 'librtshim*.so'
	printf '%s\n' "$output"
	for a in "$MULTIARCH" i386-linux-gnu; do
		for f in librtshim.so librtshim-client.so; do
			[[ $output == *"$d/opt/rtshim/lib/$a/rtshim/$f"* ]] || { echo "not installed: $a/$f"; return 1; }
		done
	done
	run -0 file -L "$d/opt/rtshim/lib/i386-linux-gnu/rtshim/librtshim.so"
	[[ $output =~ ELF\ 32-bit.*Intel\ (80386|i386) ]] # file 5.44 (Debian 12) and 5.46 (Debian 13)
	run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$b" DESTDIR="$d" PREFIX=/opt/rtshim uninstall
	run -0 find "$d" -name 'librtshim*.so'
	[ -z "$output" ]
	[ ! -e "$d/opt/rtshim/lib/i386-linux-gnu/rtshim" ]
}

# start_probe32 DEST [RUNNER...]: the installed rtrun of DEST runs the 32-bit cyclictest-style
# probe (through RUNNER, e.g. qemu-i386 -L /) as the test user, kept running by a FIFO this shell
# holds; OUT and ERR are its output.
start_probe32() {
	local fifo=$WORK/probe32.in i d=$1
	shift
	OUT=$WORK/probe32.out ERR=$WORK/probe32.err
	rm -f "$fifo" "$OUT" "$ERR"; mkfifo -m 666 "$fifo"
	as_user "$d/opt/rtshim/bin/rtrun" --timeout 10000 "$@" "$I386_PROBES/cyclictest-style" 1 80 \
		<"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	BG=$!
	exec 8>"$fifo"
	HOLD=1
	for ((i = 0; i < 200; i++)); do
		grep -q '^call setscheduler-t0' "$OUT" 2>/dev/null && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	cat "$OUT" "$ERR"
}

@test "an installed rtrun finds the i386 shim for a 32-bit program (no 'no librtshim.so for it' warning)" {
	local d=$WORK/dest2
	run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$WORK/ibuild" DESTDIR="$d" PREFIX=/opt/rtshim install
	chmod -R a+rX "$d"
	start_probe32 "$d"
	# rtrun reads the program's ELF class and looks for that architecture's shim before exec
	run grep -c 'no librtshim.so for it is installed\|cannot be preloaded\|wrong ELF class' "$ERR"
	[ "$output" = 0 ]
}

@test "an installed rtrun serves a 32-bit program: the i386 shim is preloaded and its thread gets RT" {
	local d=$WORK/dest2 pid tid
	[[ -x $d/opt/rtshim/bin/rtrun ]] ||
		run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$WORK/ibuild" DESTDIR="$d" PREFIX=/opt/rtshim install
	chmod -R a+rX "$d"
	# rtrun preloads its $LIB form: qemu hands it to the 32-bit program's own loader
	local runner=()
	if [[ -z $IA32 ]]; then
		[[ -n $QEMU_I386 ]] ||
			skip "this kernel cannot execute 32-bit programs (no IA32 emulation) and there is no qemu-i386 to run them (qemu-user-static)"
		runner=("$QEMU_I386" -L /)
	fi
	start_probe32 "$d" "${runner[@]}"
	pid=$(awk '/^pid /{ print $2; exit }' "$OUT")
	tid=$(awk '$1 == "tid" && $2 == "t0" { print $3; exit }' "$OUT")
	[ -n "$pid" ]
	grep -q " $I386_PROBES/cyclictest-style\$" "/proc/$pid/maps"
	run -0 file -L "$I386_PROBES/cyclictest-style"
	[[ $output =~ ELF\ 32-bit.*Intel\ (80386|i386) ]]
	grep -q "$d/opt/rtshim/lib/i386-linux-gnu/rtshim/librtshim.so" "/proc/$pid/maps"
	# the request's client is part of the shim: nothing more is loaded
	! grep -q "librtshim-client.so" "/proc/$pid/maps" || false
	run grep -c 'cannot be preloaded\|wrong ELF class' "$ERR"
	[ "$output" = 0 ]
	grep -q '^call setscheduler-t0 rc=0' "$OUT"
	[ "$(sched_of "$pid" "$tid")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
}
