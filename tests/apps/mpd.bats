#!/usr/bin/env bats
# MPD (Debian's mpd 0.23), unmodified, as the unprivileged test user against the real rtkit stack
# with rtkit's DEFAULT limits, headless: a null output, no database, and a state file that makes
# it play one file on repeat as soon as it starts (no client needed).  Two of its worker threads
# ask for realtime themselves at their start, "rtio" (its realtime I/O event loop) and the output
# thread ("output:null"), each through libc's syscall(): syscall(SYS_sched_setscheduler, 0,
# SCHED_FIFO|SCHED_RESET_ON_FORK, 40), so only a shim that interposes syscall() sees them.
# Refused, each says so (with --verbose) and carries on SCHED_OTHER (Debian's build has no rtkit
# client of its own: no "RealtimeKit" in the binary); under rtrun both must be rtkit grants.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

NO_RT='could not get realtime scheduling, continuing anyway: sched_setscheduler failed: Operation not permitted'

# start_mpd [--rtrun]: mpd --verbose playing 4 s of silence on repeat to a null output (synced to
# the clock like a sound card).  Sets MPD, RTIO and OUTPUT (the TIDs of the two threads).
start_mpd() {
	local dir=$APP_TMP/mpd
	install -d -m 755 -o "$TEST_USER" "$dir"
	make_mp3 4 "$dir/silence.mp3"
	cat >"$dir/mpd.conf" <<-CONF
		state_file "$dir/state"
		bind_to_address "$dir/socket"
		audio_output {
			type "null"
			name "null"
			sync "yes"
		}
	CONF
	printf '%s\n' 'state: play' 'current: 0' 'time: 0.000000' 'repeat: 1' \
		playlist_begin "0:$dir/silence.mp3" playlist_end >"$dir/state"
	chown "$TEST_USER" "$dir/state"
	spawn "$@" "$APP_TMP/mpd.log" mpd --no-daemon --stderr --verbose "$dir/mpd.conf"
	MPD=$(find_prog "$SPAWNED" mpd)
	wait_until 20 grep -q 'output: opened "null"' "$APP_TMP/mpd.log"
	wait_until 10 thread_named "$MPD" rtio
	RTIO=$(thread_named "$MPD" rtio)
	wait_until 10 thread_named "$MPD" output:null
	OUTPUT=$(thread_named "$MPD" output:null)
}

@test "mpd without rtrun: its rtio and output threads say 'could not get realtime scheduling', both SCHED_OTHER, it plays" {
	start_mpd
	log_has "$APP_TMP/mpd.log" "RTIOThread $NO_RT"
	log_has "$APP_TMP/mpd.log" "OutputThread $NO_RT"
	threads "$MPD"
	[[ $(policy_of "$RTIO") == SCHED_OTHER ]]
	[[ $(policy_of "$OUTPUT") == SCHED_OTHER ]]
	assert_none_rt "$MPD"
	log_has "$APP_TMP/mpd.log" 'playlist: play 0:'
}

@test "rtrun mpd: its rtio and output threads are rtkit grants (FIFO 40 asked: rtkit's max), nothing else RT, it plays" {
	start_mpd --rtrun
	wait_until 10 has_rt "$MPD" 2
	threads "$MPD"
	assert_granted "$RTIO" "mpd's rtio thread"
	assert_granted "$OUTPUT" "mpd's output thread"
	[ "$(prio_of "$RTIO")" -eq "$RTKIT_MAX" ]
	[ "$(prio_of "$OUTPUT")" -eq "$RTKIT_MAX" ]
	[ "$(count_rt "$MPD")" -eq 2 ]
	assert_all_rt_granted "$MPD"
	log_lacks "$APP_TMP/mpd.log" "$NO_RT"
	log_has "$APP_TMP/mpd.log" 'playlist: play 0:'
	# still playing, still granted
	sleep 1
	[ -d "/proc/$MPD" ]
	assert_granted "$OUTPUT" "mpd's output thread"
}
