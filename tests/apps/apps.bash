# tests/apps/apps.bash — helpers for the suites that run real, unmodified programs (`load apps`
# after `load ../bats/common`).  Every program runs as the unprivileged test user in the
# background, under `timeout` as a safety net; a test records what it started and teardown
# stops exactly those processes (by PID, never by name: other suites may run the same programs).
# Results are read from the kernel while the program runs: `chrt -p TID` for policy, priority
# and SCHED_RESET_ON_FORK, /proc/PID/task/TID/status for how often a thread wakes.

APP_TIMEOUT=${APP_TIMEOUT:-180} # no program outlives a stuck test by more than this (s)

# apps_setup: per-test state.  rtkit is restarted (same private bus, still its DEFAULT limits) so
# that its per-user budget — 25 requests / 20 s (rtkit lets a 26th through), 25 threads — belongs
# to this test alone.
apps_setup() {
	APP_TMP=$(mktemp -d /tmp/rtshim-app.XXXXXX)
	chmod 755 "$APP_TMP"
	STARTED=()
	JACK_NAME=rtshim-${APP_TMP##*.}
	JACK_ENV=(JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 "JACK_DEFAULT_SERVER=$JACK_NAME")
	tb_restart_rtkit >/dev/null
	RTKIT_MAX=$(rtkit_max)
	[[ $RTKIT_MAX =~ ^[0-9]+$ ]] || { echo "cannot read rtkit's MaxRealtimePriority: '$RTKIT_MAX'"; return 1; }
}

# need_program PROG WHY: a test of PROG skips, saying so, where PROG is not installed (WHY: the
# releases that have no package of it; scripts/install-deps installs it where there is one).
need_program() {
	command -v "$1" >/dev/null || skip "$1 is not installed ($2)"
}

# apps_teardown: on failure print the logs and thread tables; then stop what the test started.
apps_teardown() {
	if [[ -z ${BATS_TEST_COMPLETED:-} ]]; then
		local p f
		for p in $(descendants "${STARTED[@]}"); do
			echo "--- threads of $p ($(cat /proc/$p/comm 2>/dev/null)):"
			threads "$p"
		done
		for f in "$APP_TMP"/*.log; do
			[[ -e $f ]] || continue
			echo "--- $f"
			tail -n 40 "$f"
		done
		echo "--- rtkit log"
		tail -n 20 "$TB_DIR/rtkit.log" 2>/dev/null
	fi
	stop_started
	rm -rf "$APP_TMP"
}

# rtkit_property NAME: one of rtkit's properties as the test user reads it (MaxRealtimePriority,
# MinNiceLevel, RTTimeUSecMax).
rtkit_property() {
	as_user busctl --system get-property org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
		org.freedesktop.RealtimeKit1 "$1" | awk '{ print $2 }'
}
rtkit_max() { rtkit_property MaxRealtimePriority; }

# spawn [--rtrun] LOG [VAR=VALUE...] CMD...: CMD as the test user in the background (through
# $RTRUN with --rtrun), stdout and stderr to LOG.  SPAWNED is the PID of the outermost process
# (`timeout`; the program is its descendant: see find_prog).
spawn() {
	local -a pre=() envs=()
	if [[ $1 == --rtrun ]]; then pre=("$RTRUN"); shift; fi
	local log=$1; shift
	while [[ $1 == [A-Z_]*=* ]]; do envs+=("$1"); shift; done
	as_user env "${envs[@]}" timeout -k 5 "$APP_TIMEOUT" "${pre[@]}" "$@" \
		>"$log" 2>&1 </dev/null 3>&- &
	SPAWNED=$!
	STARTED+=("$SPAWNED")
}

# What a launcher (chrt, nice, schedtool -e) execs in the apps suites: a shell that starts a child
# and waits for it.
# shellcheck disable=SC2034 # the suites read LAUNCHED
LAUNCHED=(sh -c 'sleep 600 & wait')

# spawn_launcher [--rtrun] LOG LAUNCHER-ARGS... "${LAUNCHED[@]}": the launcher as spawn runs it;
# sets SH (the shell the launcher became) and CHILD (the sleep that shell started).
spawn_launcher() {
	spawn "$@"
	# shellcheck disable=SC2034 # the result: the suites read SH and CHILD
	SH=$(find_prog "$SPAWNED" sh)
	wait_until 10 pgrep -P "$SH" -x sleep
	# shellcheck disable=SC2034
	CHILD=$(pgrep -P "$SH" -x sleep)
}

# descendants PID...: these PIDs and all their live descendants.
descendants() {
	local -a todo=("$@")
	local p
	while ((${#todo[@]})); do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		[[ -d /proc/$p ]] || continue
		echo "$p"
		mapfile -t -O "${#todo[@]}" todo < <(pgrep -P "$p")
	done
}

# find_prog ROOT COMM [SECONDS]: the PID of the process named COMM that is ROOT or below it
# (the nearest to ROOT), once it is there (60 s at most: a busy machine starts a program behind
# a shell, pw-jack and rtrun slowly); fails at once if ROOT ends first.  Each look walks the
# kernel's child lists (/proc/PID/task/TID/children) in bash alone: a pgrep per process, each
# reading all of /proc, took longer on a busy machine than ecasound's 3 s run.
find_prog() {
	local root=$1 comm=${2:0:15} secs=${3:-60} i p t name
	local -a todo kids
	for ((i = 0; i < secs * 10; i++)); do
		todo=("$root")
		while ((${#todo[@]})); do
			p=${todo[0]}
			todo=("${todo[@]:1}")
			name=
			{ read -r name <"/proc/$p/comm"; } 2>/dev/null
			[[ $name == "$comm" ]] && { echo "$p"; return 0; }
			for t in /proc/"$p"/task/*/children; do
				kids=()
				{ read -r -a kids <"$t"; } 2>/dev/null
				todo+=("${kids[@]}")
			done
		done
		[[ -d /proc/$root ]] || break
		sleep 0.1
	done
	if [[ -d /proc/$root ]]; then
		echo "no process '$comm' under PID $root after $secs s" >&2
	else
		echo "no process '$comm' under PID $root: it ended" >&2
	fi
	return 1
}

# stop_started: TERM everything the test started (newest first, so clients go before their
# server), then KILL what is still there after 5 s; reap.
stop_started() {
	local i p
	local -a pids
	for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
		mapfile -t pids < <(descendants "${STARTED[i]}")
		((${#pids[@]})) || continue
		kill -TERM "${pids[@]}" 2>/dev/null
		for p in "${pids[@]}"; do wait_gone "$p" 5 || kill -KILL "$p" 2>/dev/null; done
		for p in "${pids[@]}"; do wait_gone "$p" 5; done
	done
	for p in "${STARTED[@]}"; do wait "$p" 2>/dev/null; done
	STARTED=()
	return 0
}

wait_gone() {
	local i
	for ((i = 0; i < ${2:-5} * 20; i++)); do
		[[ -d /proc/$1 ]] || return 0
		# a zombie child of this shell counts as gone
		[[ $(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) == Z ]] && return 0
		sleep 0.05
	done
	return 1
}

# wait_until SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out after ${secs}s waiting for: $*" >&2
	return 1
}

# threads PID: one line per thread, "TID COMM POLICY PRIORITY" as the kernel reports them,
# e.g. "4242 jackd SCHED_RR|SCHED_RESET_ON_FORK 20".  A thread that exits while it is read is
# left out, not listed with a field missing.
threads() {
	local t tid s comm
	for t in /proc/$1/task/*; do
		tid=${t##*/}
		comm=$({ tr ' ' _ <"$t/comm"; } 2>/dev/null) || continue
		s=$(sched_of "$tid" 2>/dev/null) || continue
		[[ -n $s && -n $comm && -d $t ]] || continue
		echo "$tid $comm $s"
	done
}

# thread_named PID COMM: the TID of PID's first thread named COMM (as /proc/PID/task/TID/comm
# has it, spaces as _); fails if there is none.
thread_named() { threads "$1" | awk -v c="${2:0:15}" '$2 == c { print $1; found = 1; exit } END { exit !found }'; }

rt_threads() { threads "$1" | awk '$3 ~ /SCHED_(FIFO|RR)/'; }
# rt_prios_are PID "P1 P2...": the priorities of PID's RT threads, in ascending order, are these.
# Read from /proc/PID/task/TID/stat (rt_priority, policy) in bash alone: a poll that forks chrt
# per thread outlived a 3 s program on a busy machine.
rt_prios_are() {
	local t line i j x
	local -a f prios=()
	for t in /proc/"$1"/task/*/stat; do
		{ read -r line <"$t"; } 2>/dev/null || continue
		read -r -a f <<<"${line##*) }" # from field 3 (state) on
		((f[38] == 1 || f[38] == 2)) && prios+=("${f[37]}") # SCHED_FIFO, SCHED_RR
	done
	for ((i = 1; i < ${#prios[@]}; i++)); do # insertion sort, a few threads
		x=${prios[i]}
		for ((j = i - 1; j >= 0 && prios[j] > x; j--)); do prios[j + 1]=${prios[j]}; done
		prios[j + 1]=$x
	done
	[[ ${prios[*]} == "$2" ]]
}
count_rt() { rt_threads "$1" | wc -l; }
count_threads() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
has_rt() { (($(count_rt "$1") >= ${2:-1})); }
has_threads() { (($(count_threads "$1") >= $2)); }

# policy_of TID / prio_of TID
policy_of() { sched_of "$1" | awk '{ print $1 }'; }
prio_of() { sched_of "$1" | awk '{ print $2 }'; }

# switches PID TID: how often the thread has been switched out so far.
switches() { awk '/ctxt_switches/ { n += $2 } END { print n + 0 }' "/proc/$1/task/$2/status" 2>/dev/null; }

# busiest PID: the thread that was switched the most over the last 0.5 s — the one that wakes
# every period (a JACK server's or client's process thread, whatever its policy).
busiest() {
	local t tid
	declare -A before
	for t in /proc/$1/task/*; do tid=${t##*/}; before[$tid]=$(switches "$1" "$tid"); done
	sleep 0.5
	for t in /proc/$1/task/*; do
		tid=${t##*/}
		echo "$(($(switches "$1" "$tid") - ${before[$tid]:-0})) $tid"
	done | sort -n | tail -n 1 | awk '$1 > 0 { print $2 }'
}

# is_granted TID: SCHED_RR|SCHED_RESET_ON_FORK with 1 <= priority <= rtkit's maximum — what an
# rtkit grant looks like.
is_granted() {
	local s
	s=$(sched_of "$1") || return 1
	set -- $s
	[[ $1 == "SCHED_RR|SCHED_RESET_ON_FORK" ]] && (($2 >= 1 && $2 <= RTKIT_MAX))
}

# assert_granted TID WHAT: fail with the thread's actual state if it is not an rtkit grant.
assert_granted() {
	is_granted "$1" && return 0
	echo "$2 (TID $1) is '$(sched_of "$1")', want SCHED_RR|SCHED_RESET_ON_FORK at 1..$RTKIT_MAX"
	return 1
}

# assert_all_rt_granted PID: every RT thread of PID is an rtkit grant (nothing FIFO, nothing
# above the maximum); prints its RT threads.
assert_all_rt_granted() {
	local tid rest bad=0
	while read -r tid rest; do
		echo "  $1/$tid $rest"
		is_granted "$tid" || { echo "  ^ not an rtkit grant"; bad=1; }
	done < <(rt_threads "$1")
	((bad == 0))
}

# assert_none_rt PID: no thread of PID is RT.
assert_none_rt() {
	local n
	n=$(count_rt "$1")
	((n == 0)) && return 0
	echo "PID $1 has $n RT threads, want none:"
	rt_threads "$1"
	return 1
}

# log_has FILE PATTERN / log_lacks FILE PATTERN (extended regex), with the evidence on failure.
log_has() {
	grep -Eq -- "$2" "$1" && return 0
	echo "$1 lacks /$2/:"
	tail -n 20 "$1"
	return 1
}
log_lacks() {
	grep -Eq -- "$2" "$1" || return 0
	echo "$1 has /$2/:"
	grep -E -- "$2" "$1"
	return 1
}

# make_mp3 SECONDS FILE: that much silence at 48 kHz stereo (jackd's rate: no resampling),
# encoded by lame, readable by the test user.
make_mp3() {
	head -c $((48000 * 4 * $1)) /dev/zero |
		lame --silent -r -s 48 --resample 48 --bitwidth 16 -m s -b 64 - "$2" 2>/dev/null
	chmod 644 "$2"
}

# --- JACK --------------------------------------------------------------------------------------

# start_jackd [--rtrun] LOG JACKD-ARGS...: jackd named $JACK_NAME as the test user; returns once
# a client can connect.  Sets JACKD (the server's PID).
start_jackd() {
	local -a rt=()
	if [[ $1 == --rtrun ]]; then rt=(--rtrun); shift; fi
	local log=$1; shift
	spawn "${rt[@]}" "$log" "${JACK_ENV[@]}" jackd -n "$JACK_NAME" "$@"
	# shellcheck disable=SC2034 # the result: the suites read JACKD
	JACKD=$(find_prog "$SPAWNED" jackd) || return 1
	if ! as_user env "${JACK_ENV[@]}" timeout 40 jack_wait -w -t 30 -s "$JACK_NAME" >/dev/null 2>&1; then
		echo "jackd $JACK_NAME did not come up:"
		cat "$log"
		return 1
	fi
}

# long_note FILE: a MIDI file of one note that lasts 600 s, longer than APP_TIMEOUT: a synth
# playing it runs until the test stops it, however slowly a busy machine gets to read its threads.
# MThd: format 0, one track, 96 ticks per beat; MTrk: note on, 115200 ticks (600 s at 120 bpm),
# note off, end of track.
long_note() {
	printf 'MThd\0\0\0\6\0\0\0\1\0\140MTrk\0\0\0\16\0\220\74\144\207\204\0\200\74\0\0\377\57\0' >"$1"
	chmod 644 "$1"
}

# start_jack_client [--rtrun] LOG COMM CMD...: a JACK client of $JACK_NAME; sets CLIENT (PID).
start_jack_client() {
	local -a rt=()
	if [[ $1 == --rtrun ]]; then rt=(--rtrun); shift; fi
	local log=$1 comm=$2; shift 2
	spawn "${rt[@]}" "$log" "${JACK_ENV[@]}" "$@"
	CLIENT=$(find_prog "$SPAWNED" "$comm")
}

# assert_jack_refused LOG: plain, libjack said "Cannot use real-time scheduling (RR/65)" in the
# client's LOG, and the kernel has the client's ($CLIENT) process thread SCHED_OTHER, nothing RT.
assert_jack_refused() {
	wait_until 20 grep -q 'Cannot use real-time scheduling' "$1"
	log_has "$1" 'Cannot use real-time scheduling \(RR/65\) \(1: Operation not permitted\)'
	local proc
	proc=$(jack_process_thread "$CLIENT")
	echo "client process thread $proc: $(sched_of "$proc")"
	[[ $(policy_of "$proc") == SCHED_OTHER ]]
	assert_none_rt "$CLIENT"
}

# jack_process_thread PID: the thread that runs every period.  Waits until there is one.
jack_process_thread() {
	local i t
	for ((i = 0; i < 40; i++)); do
		t=$(busiest "$1")
		[[ -n $t ]] && { echo "$t"; return 0; }
	done
	echo "PID $1: no thread runs periodically" >&2
	return 1
}

# --- PipeWire ----------------------------------------------------------------------------------

# start_pipewire: a PipeWire session as the test user, as a desktop runs it, headless: a session
# bus of its own (dbus-run-session), pipewire (its default configuration: no sound card, its
# Dummy-Driver drives the graph) and wireplumber, in a runtime directory of the test's own.
# Returns once both hold their rtkit grant.  Sets PIPEWIRE and WIREPLUMBER (PIDs) and PW_ENV, the
# environment a client of that session gets (XDG_RUNTIME_DIR, the session bus).
start_pipewire() {
	local run=$APP_TMP/run
	mkdir -m 700 "$run"
	chown "$TEST_USER" "$run"
	cat >"$APP_TMP/session.sh" <<-'SH'
		#!/bin/sh
		# the session bus address for the clients, then the two daemons
		echo "$DBUS_SESSION_BUS_ADDRESS" >"$XDG_RUNTIME_DIR/bus-address"
		pipewire &
		# wireplumber exits ("Failed to connect to PipeWire") if it starts before the socket
		i=0
		while [ ! -S "$XDG_RUNTIME_DIR/pipewire-0" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
		wireplumber &
		wait
	SH
	chmod 755 "$APP_TMP/session.sh"
	spawn "$APP_TMP/pipewire.log" "XDG_RUNTIME_DIR=$run" "XDG_CONFIG_HOME=$run/config" \
		"XDG_STATE_HOME=$run/state" dbus-run-session -- "$APP_TMP/session.sh"
	PIPEWIRE=$(find_prog "$SPAWNED" pipewire) || return 1
	WIREPLUMBER=$(find_prog "$SPAWNED" wireplumber) || return 1
	wait_until 20 has_rt "$PIPEWIRE" || return 1
	wait_until 20 has_rt "$WIREPLUMBER" || return 1
	# shellcheck disable=SC2034 # the result: the suites read PW_ENV
	PW_ENV=("XDG_RUNTIME_DIR=$run" "DBUS_SESSION_BUS_ADDRESS=$(cat "$run/bus-address")")
}
