# scripts/sched-defaults.bash — sourced by tests/run, scripts/demo, scripts/bench and
# scripts/testbed.  sched_defaults WHO [quiet]: this shell (and so everything it starts) runs with the
# kernel's defaults, SCHED_OTHER and nice 0, as in a desktop session.  Children inherit both, and
# some machines start everything realtime (a CI runner was seen at SCHED_RR 10, nice -10): the
# test user's direct call would no longer fail, the "plain" side of the demo and the benchmarks
# would not be plain, and rtkit-daemon's own threads would start realtime.
sched_defaults() {
	local who=$1 quiet=${2:-} policy nice
	policy=$(chrt -p $$ 2>/dev/null | awk -F': ' '/policy/ { p = $2 } /priority/ { print p, $2 }')
	nice=$(sed 's/.*) //' /proc/$$/stat | awk '{ print $17 }') # field 19: after "pid (comm) "
	[[ $policy == "SCHED_OTHER 0" && $nice == 0 ]] && return 0
	if chrt -o -p 0 $$ >/dev/null 2>&1 && renice -n 0 -p $$ >/dev/null 2>&1; then
		[[ -n $quiet ]] || echo "$who: started as $policy, nice $nice; running as SCHED_OTHER 0, nice 0" >&2
	else
		echo "$who: started as $policy, nice $nice and cannot change that; results may differ" >&2
	fi
}
