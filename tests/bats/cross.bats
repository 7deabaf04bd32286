#!/usr/bin/env bats
# The arm64, armhf and s390x (big-endian) builds (`make cross`: clang for the target against Debian's cross libc):
# the shim links libc alone and exports exactly its interposers, syscall() included, and rtrun
# links libc alone.  Run under qemu-user (invoked directly, the target's loader and libc from
# /usr/TRIPLET; single-threaded probes), the shim's syscall() entry hands every other number
# to libc's syscall() with its arguments untouched (the same lines as without the shim), and
# sched_setscheduler/sched_setparam to the shim: as root the kernel's FIFO exactly as asked,
# as the test user the shim's grant path (its D-Bus client is built in: rtkit on the testbed's
# bus grants); rt_sigaction, rt_sigprocmask and prlimit64 to the runaway guard: a
# program started realtime by chrt (as root) that sets SIGXCPU's
# disposition or mask, or its soft RLIMIT_RTTIME, through syscall() is demoted at the guard's
# soft limit instead of killed at the hard one (qemu-user passes RLIMIT_RTTIME's SIGXCPU on to
# the guest's handler).  What the probes print is read from the host kernel through qemu.

bats_require_minimum_version 1.5.0
load common

TARGETS=(aarch64-linux-gnu arm-linux-gnueabihf s390x-linux-gnu)

setup_file() { tb_start; }
teardown_file() { tb_stop; }

# qemu_of TRIPLET: the qemu-user binary for it.
qemu_of() {
	case $1 in
	aarch64-*) echo qemu-aarch64-static ;;
	arm-*) echo qemu-arm-static ;;
	s390x-*) echo qemu-s390x-static ;;
	esac
}

# qemu_run TRIPLET [--shim] PROBE ARGS...: the cross-built probe under qemu, as the test user,
# its output with the address a failed six-argument mmap returned blanked (it varies per run).
qemu_run() {
	local t=$1 shim=; shift
	if [[ $1 == --shim ]]; then shim=$B/cross/$t/lib/$t/rtshim/librtshim.so; shift; fi
	local p=$B/cross/$t/tests/$t/probes/$1; shift
	as_user "$(qemu_of "$t")" -L "/usr/$t" ${shim:+-E LD_PRELOAD="$shim"} "$p" "$@" |
		sed 's/returned [0-9-]*,/returned N,/'
}

@test "arm64, armhf, s390x: the shim links libc alone and exports exactly its interposers, syscall included" {
	local t s syms listed
	listed=$(cc -E -P -x assembler-with-cpp -I"$RTSHIM_ROOT/kernel" "$RTSHIM_ROOT/shim/librtshim.map" |
		sed -n 's/^[[:space:]]*\([a-z_0-9]*\);$/\1/p' | grep -vx syscall | sort | tr '\n' ' ')
	for t in "${TARGETS[@]}"; do
		s=$B/cross/$t/lib/$t/rtshim/librtshim.so
		[[ -f $s ]] || { echo "not built: $s (make cross)"; return 1; }
		run -0 file -L "$s"
		case $t in
		aarch64-*) [[ $output == *"64-bit"*"ARM aarch64"* ]] ;;
		arm-*) [[ $output == *"32-bit"*"ARM, EABI5"* ]] ;;
		s390x-*) [[ $output == *"64-bit MSB"*"IBM S/390"* ]] ;;
		esac
		run -0 readelf -d "$s"
		[ "$(awk '/NEEDED/ { print $5 }' <<<"$output")" = "[libc.so.6]" ]
		run -0 nm -D --defined-only "$s"
		syms=$(awk '{ print $3 }' <<<"$output" | sort | tr '\n' ' ')
		# the x86_64 map preprocessed, syscall put back: the same list on every architecture
		[ "$syms" = "$(tr ' ' '\n' <<<"$listed syscall" | grep . | sort | tr '\n' ' ')" ]
		run -0 readelf -d "$B/cross/$t/bin/rtrun"
		[ "$(awk '/NEEDED/ { print $5 }' <<<"$output")" = "[libc.so.6]" ]
	done
}

@test "arm64, armhf, s390x under qemu: syscall() passes every other number through untouched (six arguments, errors)" {
	local t without
	for t in "${TARGETS[@]}"; do
		run -0 qemu_run "$t" syscall-pass
		without=$output
		# (s390x's six-argument case is copy_file_range: its mmap takes one pointer)
		[[ $without == *"case getpid ok"* ]]
		[[ $without == *"case six-arguments-offset ok"* || $without == *"case six-arguments-copy ok"* ]]
		run -0 qemu_run "$t" --shim syscall-pass
		echo "$t: $output"
		[ "$output" = "$without" ]
		# (qemu 7.2's mmap does not honour MAP_FIXED_NOREPLACE: six-arguments-error fails alike)
		(($(grep -c '^case .* ok$' <<<"$output") >= 7))
	done
}

@test "arm64, armhf, s390x under qemu: syscall(SYS_sched_setscheduler) as root is exactly the kernel's FIFO, as without the shim" {
	local t
	for t in "${TARGETS[@]}"; do
		run -0 as_root "$(qemu_of "$t")" -L "/usr/$t" "$B/cross/$t/tests/$t/probes/syscall-sched" 10
		local plain=$output
		[[ $plain == *$'kernel set FIFO 10\n'*$'kernel param FIFO 9\n'*'kernel other OTHER 0'* ]]
		run -0 as_root "$(qemu_of "$t")" -L "/usr/$t" -E LD_PRELOAD="$B/cross/$t/lib/$t/rtshim/librtshim.so" \
			-E RTSHIM_LOG=debug "$B/cross/$t/tests/$t/probes/syscall-sched" 10
		echo "$t: $output"
		# the shim took the call (its debug line) and made it as asked
		[[ $output == *"FIFO/10 requested → granted directly"* ]]
		[ "$(grep -v '^rtshim' <<<"$output")" = "$plain" ]
	done
}

@test "arm64, armhf, s390x under qemu: syscall(SYS_sched_setscheduler) refused to the user is granted through the shim's own client" {
	local t
	for t in "${TARGETS[@]}"; do
		run -0 qemu_run "$t" syscall-sched 10
		[ "$output" = $'call setscheduler rc=-1 err=EPERM\nkernel set OTHER 0' ]
		run -0 as_user "$(qemu_of "$t")" -L "/usr/$t" -E LD_PRELOAD="$B/cross/$t/lib/$t/rtshim/librtshim.so" \
			-E RTSHIM_TIMEOUT_MS=10000 "$B/cross/$t/tests/$t/probes/syscall-sched" 10
		echo "$t: $output"
		[ "$output" = $'call setscheduler rc=0 err=OK\nkernel set RR|RESET 10\ncall setparam rc=0 err=OK\nkernel param RR|RESET 9\ncall other rc=0 err=OK\nkernel other OTHER|RESET 0' ]
	done
}

# guard_run TRIPLET [--shim] MODE: syscall-guard under qemu as root, started FIFO 10 with
# RLIMIT_RTTIME 450 ms soft, 500 ms hard (the guard's soft: 400 ms), computing 700 ms; its
# output and, last, "exit N".
guard_run() {
	local t=$1 shim=; shift
	if [[ $1 == --shim ]]; then shim=$B/cross/$t/lib/$t/rtshim/librtshim.so; shift; fi
	as_root prlimit --rttime=450000:500000 chrt -f 10 "$(qemu_of "$t")" -L "/usr/$t" \
		${shim:+-E LD_PRELOAD="$shim"} "$B/cross/$t/tests/$t/probes/syscall-guard" "$1" 700 2>&1
	echo "exit $?"
}

# guard_promise MODE PLAIN SHIM HANDLED: on each target, MODE without the shim prints PLAIN and
# is killed at the hard limit (137); with the shim it prints SHIM, ends SCHED_OTHER, its own
# handler run HANDLED times, and exits 0.
guard_promise() {
	local t
	for t in "${TARGETS[@]}"; do
		run -0 guard_run "$t" "$1"
		echo "$t without the shim: $output"
		[[ $output == *"$2"* ]]
		[[ $output == *"exit 137" ]]
		run -0 guard_run "$t" --shim "$1"
		echo "$t with the shim: $output"
		[[ $output == *"$3"* ]]
		[[ $output == *$'kernel end OTHER 0\nhandler '"$4"$'\ndone\nexit 0' ]]
	done
}

@test "arm64, armhf, s390x under qemu: a program started realtime that sets its soft RLIMIT_RTTIME to the hard one through syscall(SYS_prlimit64) reads its own value, keeps the guard's, is demoted and lives" {
	# what the program set, read back; the kernel's soft limit still the guard's
	guard_promise rttime $'rttime 500000 500000\nkernel-rttime 500000 500000\n' \
		$'rttime 450000 500000\nrttime 500000 500000\nkernel-rttime 400000 500000\nkernel start FIFO 10\n' 0
}

@test "arm64, armhf, s390x under qemu: a SIGXCPU handler installed through syscall(SYS_rt_sigaction) by a program started realtime is read back, runs, and the program is demoted instead of killed" {
	# the guard demoted the thread and chained the overrun to the program's handler
	guard_promise handler $'disposition own\n' \
		$'disposition own\nkernel-rttime 400000 500000\nkernel start FIFO 10\n' 1
}

@test "arm64, armhf, s390x under qemu: SIGXCPU blocked through syscall(SYS_rt_sigprocmask) by a program started realtime: it reads its own mask, is demoted instead of killed" {
	guard_promise mask $'blocked yes\n' $'blocked yes\nkernel-rttime 400000 500000\nkernel start FIFO 10\n' 0
}

# ---- a grant through the host's rtkit: the client and the threaded probes built against the
# target's sysroot (scripts/cross-sysroot: its libc and libdbus), run under qemu-user with it ----

# sysroot_of TRIPLET: the sysroot `make cross` built the client against, or nothing.
sysroot_of() {
	local a
	case $1 in aarch64-*) a=arm64 ;; arm-*) a=armhf ;; s390x-*) a=s390x ;; esac
	local d=${RTSHIM_SYSROOT_DIR:-/var/tmp/rtshim-sysroot}-$a
	[[ -e $d/.rtshim-complete && -f $B/cross/$1/lib/$1/rtshim/librtshim-client.so ]] && echo "$d"
}

need_sysroots() {
	local t
	for t in "${TARGETS[@]}"; do
		sysroot_of "$t" >/dev/null ||
			skip "no $t sysroot or client: scripts/cross-sysroot arm64 armhf s390x (mmdebstrap), then make cross"
	done
}

# qemu_bg TRIPLET UNTIL PROBE ARGS...: the probe under qemu with the shim (and its client) as the
# test user, requests with a long timeout, kept running by a FIFO this shell holds, until it
# prints a line matching UNTIL (or ends); OUT and ERR are its output.
qemu_bg() {
	local t=$1 until=$2 p=$3 i sr fifo=$BATS_TEST_TMPDIR/qemu.in
	shift 3
	sr=$(sysroot_of "$t")
	OUT=$BATS_TEST_TMPDIR/qemu.out ERR=$BATS_TEST_TMPDIR/qemu.err
	rm -f "$fifo"; mkfifo -m 666 "$fifo"
	fresh_outputs "$OUT" "$ERR"
	as_user env RTSHIM_TIMEOUT_MS=10000 "$(qemu_of "$t")" -L "$sr" \
		-E LD_PRELOAD="$B/cross/$t/lib/$t/rtshim/librtshim.so" "$B/cross/$t/tests/$t/probes/$p" "$@" \
		<"$fifo" >"$OUT" 2>"$ERR" 3>&- &
	BG=$!
	exec 8>"$fifo"
	for ((i = 0; i < 600; i++)); do
		grep -q "$until" "$OUT" 2>/dev/null && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	PID=$(awk '/^pid /{ print $2; exit }' "$OUT")
	cat "$OUT" "$ERR"
}

qemu_stop() {
	[[ -n ${BG:-} ]] || return 0
	exec 8>&-
	wait "$BG" || true
	unset BG
}

teardown() { qemu_stop; }

@test "arm64, armhf, s390x under qemu with the target's libdbus: a thread's sched_setscheduler is granted by the host's rtkit (RR|RESET_ON_FORK 20 in the kernel)" {
	local t tid
	need_sysroots
	for t in "${TARGETS[@]}"; do
		qemu_bg "$t" '^sees t0' cyclictest-style 1 80
		tid=$(awk '$1 == "tid" && $2 == "t0" { print $3; exit }' "$OUT")
		[ -n "$PID" ]
		[ -n "$tid" ]
		grep -q "$B/cross/$t/lib/$t/rtshim/librtshim.so" "/proc/$PID/maps"
		grep -q '^call setscheduler-t0 rc=0' "$OUT"
		[ "$(sched_of "$PID" "$tid")" = "SCHED_RR|SCHED_RESET_ON_FORK 20" ]
		qemu_stop
	done
}

@test "arm64, armhf, s390x under qemu with the target's libdbus: syscall(SYS_sched_setscheduler) as the test user is granted by the host's rtkit" {
	local t
	need_sysroots
	for t in "${TARGETS[@]}"; do
		run -0 as_user env RTSHIM_TIMEOUT_MS=10000 "$(qemu_of "$t")" -L "$(sysroot_of "$t")" \
			-E LD_PRELOAD="$B/cross/$t/lib/$t/rtshim/librtshim.so" "$B/cross/$t/tests/$t/probes/syscall-sched" 10
		echo "$t: $output"
		[[ $output == *"call setscheduler rc=0 err=OK"*"kernel set RR|RESET 10"* ]]
		[[ $output == *"kernel param RR|RESET 9"* ]]
	done
}

@test "arm64, armhf, s390x under qemu with the target's libdbus: a granted thread that spins is demoted by the runaway guard, the program lives" {
	local t tid
	need_sysroots
	for t in "${TARGETS[@]}"; do
		qemu_bg "$t" '^ready' rt-busy dfl 0.6 70 1
		tid=$(awk '$1 == "tid" && $2 == "busy0" { print $3; exit }' "$OUT")
		grep -q '^kernel busy0-start RR|RESET 20$' "$OUT"
		grep -q '^survived$' "$OUT"
		kill -0 "$PID"
		[ "$(sched_of "$PID" "$tid")" = "SCHED_OTHER|SCHED_RESET_ON_FORK 0" ]
		[ "$(soft_rttime "$PID")" = 160000 ]
		[ "$(grep -c 'demoted to SCHED_OTHER' "$ERR")" = 1 ]
		qemu_stop
	done
}
