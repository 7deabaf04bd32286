#!/usr/bin/env bats
# jack_capture (Debian's jack-capture), unmodified, recording from the test's own jackd to a WAV
# file, as the unprivileged test user against the real rtkit stack with rtkit's DEFAULT limits.
# Besides libjack's process thread it asks from a worker: one of its helper threads (not the one
# that writes the file: strace) calls setpriority(PRIO_PROCESS, 0, -20) (on Linux: the calling
# thread), then -19, -18 ... -1 until one works, and warns if none does.  Under rtrun the first call must work, clamped to rtkit's
# MinNiceLevel, for that thread alone, and the process thread must be an rtkit grant.

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { need_program jack_capture 'Debian 13 has no jack-capture package'; apps_setup; }
teardown() { apps_teardown; }

NO_NICE='Could not set higher priority for a SCHED_OTHER process using setpriority'
NO_RT='Cannot use real-time scheduling'

# capture [--rtrun]: jack_capture recording 30 s of jackd's two capture ports, no console; sets
# CLIENT.
capture() {
	local dir=$APP_TMP/rec
	install -d -m 755 -o "$TEST_USER" "$dir"
	start_jackd "$@" "$APP_TMP/jackd.log" -R -P 70 -d dummy
	start_jack_client "$@" "$APP_TMP/jack_capture.log" jack_capture \
		jack_capture -dc -ns -d 30 -f wav "$dir/capture.wav"
	wait_until 20 test -s "$dir/capture.wav"
}

# reniced PID: "TID NICE" for each thread of PID whose nice value is not 0.
reniced() {
	local t n
	for t in /proc/$1/task/*; do
		n=$(nice_of "$1" "${t##*/}") || continue
		[[ $n == 0 ]] || echo "${t##*/} $n"
	done
}
has_reniced() { [[ -n $(reniced "$1") ]]; }

@test "jack_capture without rtrun: a worker's setpriority -20..-1 all refused (warning), every thread nice 0 and SCHED_OTHER" {
	capture
	wait_until 20 grep -q "$NO_NICE" "$APP_TMP/jack_capture.log"
	log_has "$APP_TMP/jack_capture.log" "$NO_RT \(RR/65\)"
	threads "$CLIENT"
	assert_none_rt "$CLIENT"
	[ -z "$(reniced "$CLIENT")" ]
}

@test "rtrun jack_capture: that worker alone at rtkit's MinNiceLevel, the process thread an rtkit grant, no warning" {
	capture --rtrun
	local min_nice tid nice proc
	min_nice=$(rtkit_property MinNiceLevel)
	wait_until 20 has_rt "$CLIENT"
	wait_until 10 has_reniced "$CLIENT"
	threads "$CLIENT"
	reniced "$CLIENT"
	read -r tid nice < <(reniced "$CLIENT")
	[ "$(reniced "$CLIENT" | wc -l)" -eq 1 ]
	[ "$nice" -eq "$min_nice" ]
	# libjack's process thread is its only thread that asks for RT: exactly one RT thread, a grant
	[ "$(count_rt "$CLIENT")" -eq 1 ]
	proc=$(rt_threads "$CLIENT" | awk '{ print $1 }')
	assert_granted "$proc" "jack_capture's JACK process thread"
	# the reniced thread is neither the main thread nor the process thread: a worker asked
	[ "$tid" != "$CLIENT" ]
	[ "$tid" != "$proc" ]
	assert_all_rt_granted "$CLIENT"
	log_lacks "$APP_TMP/jack_capture.log" "$NO_NICE|$NO_RT"
}
