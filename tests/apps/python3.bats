#!/usr/bin/env bats
# python3 (Debian's python3.11 3.11.2), unmodified, as the unprivileged test user against the real
# rtkit stack with rtkit's DEFAULT limits: a script's own scheduling calls, os.sched_setscheduler
# (libc's sched_setscheduler) on the main thread and in a threading.Thread, and os.nice (libc's
# nice(), which glibc implements with its own getpriority/setpriority calls).

load ../bats/common
load apps

setup_file() { tb_start; }
teardown_file() { tb_stop; }
setup() { apps_setup; }
teardown() { apps_teardown; }

# script NAME BODY: a Python script in APP_TMP the test user can read.
script() {
	printf '%s\n' "$2" >"$APP_TMP/$1"
	chmod 644 "$APP_TMP/$1"
}

SCHED='import os, sys, threading, time
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
print("main", os.getpid(), os.sched_getscheduler(0), os.sched_getparam(0).sched_priority, flush=True)
def worker():
    os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(5))
    print("worker", threading.get_native_id(), os.sched_getscheduler(0), flush=True)
    time.sleep(600)
threading.Thread(target=worker).start()
time.sleep(600)'

@test "python3 os.sched_setscheduler(0, SCHED_FIFO, 10) without rtrun: PermissionError, exit 1" {
	script sched.py "$SCHED"
	run as_user timeout 30 python3 "$APP_TMP/sched.py"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"PermissionError: [Errno 1] Operation not permitted"* ]]
}

@test "rtrun python3: the main thread's os.sched_setscheduler FIFO 10 is RR 10 (read back as the FIFO asked), a threading.Thread's RR 5 is RR 5, both rtkit grants" {
	script sched.py "$SCHED"
	spawn --rtrun "$APP_TMP/py.log" python3 "$APP_TMP/sched.py"
	local py worker
	py=$(find_prog "$SPAWNED" python3)
	wait_until 20 grep -q '^worker ' "$APP_TMP/py.log"
	cat "$APP_TMP/py.log"
	worker=$(awk '/^worker / { print $2 }' "$APP_TMP/py.log")
	threads "$py"
	[ "$(sched_of "$py")" = "SCHED_RR|SCHED_RESET_ON_FORK 10" ]
	[ "$(sched_of "$worker")" = "SCHED_RR|SCHED_RESET_ON_FORK 5" ]
	[ "$(count_rt "$py")" -eq 2 ]
	# what the script reads back: the FIFO (1) it asked for, which rtkit granted as RR (the kernel's
	# view above: rtshim(7), what a program reads back); the worker asked RR and reads RR (2)
	log_has "$APP_TMP/py.log" "^main $py 1 10$"
	log_has "$APP_TMP/py.log" "^worker $worker 2$"
}

@test "rtrun python3: os.sched_setscheduler(0, SCHED_FIFO, 99) reads back FIFO 99 from os.sched_getscheduler and os.sched_getparam; the kernel has rtkit's RR at its maximum" {
	script max.py 'import os, time
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
p = os.sched_getparam(0).sched_priority
print("max", os.getpid(), os.sched_getscheduler(0), p, flush=True)
os.sched_setparam(0, os.sched_param(p - 1))
print("less", os.sched_getparam(0).sched_priority, flush=True)
time.sleep(600)'
	spawn --rtrun "$APP_TMP/py.log" python3 "$APP_TMP/max.py"
	local py
	py=$(find_prog "$SPAWNED" python3)
	wait_until 20 grep -q '^less ' "$APP_TMP/py.log"
	cat "$APP_TMP/py.log"
	[ "$(sched_of "$py")" = "SCHED_RR|SCHED_RESET_ON_FORK $RTKIT_MAX" ]
	# what it set, as root's script reads it; one less than that, as root's would
	log_has "$APP_TMP/py.log" "^max $py 1 99$"
	log_has "$APP_TMP/py.log" "^less 98$"
}

NICE='import os, time
print("nice", os.nice(-5), flush=True)
time.sleep(600)'

@test "python3 os.nice(-5) without rtrun: PermissionError, exit 1" {
	script nice.py "$NICE"
	run as_user timeout 30 python3 "$APP_TMP/nice.py"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"PermissionError: [Errno 1] Operation not permitted"* ]]
}

@test "rtrun python3 os.nice(-5): the process runs at nice -5 (rtkit's high priority) and os.nice returns -5" {
	script nice.py "$NICE"
	spawn --rtrun "$APP_TMP/py.log" python3 "$APP_TMP/nice.py"
	local py
	py=$(find_prog "$SPAWNED" python3)
	wait_until 20 grep -q '^nice ' "$APP_TMP/py.log"
	cat "$APP_TMP/py.log"
	[ "$(nice_of "$py" "$py")" -eq -5 ]
	log_has "$APP_TMP/py.log" '^nice -5$'
	assert_none_rt "$py"
}
