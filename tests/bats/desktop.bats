#!/usr/bin/env bats
# rtshim-desktop's command line and bookkeeping, in a private XDG_DATA_DIRS / XDG_DATA_HOME: every
# rtrun option passed on into Exec, `rtrun` from PATH unless --rtrun, the options recorded in the
# override, --list's stale/orphaned states and --refresh.  No bus needed: launching an override
# against the real stack is in rtrun.bats.

bats_require_minimum_version 1.5.0
load common

SD=$RTSHIM_ROOT/scripts/rtshim-desktop

setup() {
	XDG=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$XDG/sys/applications" "$XDG/home"
	export XDG_DATA_DIRS=$XDG/sys XDG_DATA_HOME=$XDG/home HOME=$XDG/home
	# rtrun from the tree under test is the one in PATH
	export PATH="$PFX/bin:$PATH"
	SRC=$XDG/sys/applications/org.rtshim.Synth.desktop
	O=$XDG/home/applications/org.rtshim.Synth.desktop
	write_entry /usr/lib/synth/synth
}

# write_entry PROGRAM: the "installed" entry, with an action
write_entry() {
	cat >"$SRC" <<EOF
[Desktop Entry]
Type=Application
Name=rtshim test synth
Exec=$1 %U
Actions=new;

[Desktop Action new]
Name=New instance
Exec=$1 --new
EOF
}

# exec_line [N]: the override's Nth Exec line (default: the first) without the sh in front that
# runs the program plainly when rtrun is gone (checked by its own test)
exec_line() {
	local l
	l=$(sed -n 's/^Exec=//p' "$O" | sed -n "${1:-1}p")
	[[ $l == "sh -c \"command -v "*" sh "* ]] || { echo "no fallback: $l"; return; }
	echo "${l#"sh -c \"command -v "* sh }"
}

@test "rtshim-desktop passes every rtrun option (rtrun --help) on in Exec" {
	# a sample for each option of rtrun --help; an option rtrun gains must be added here
	local -A sample=(
		[--priority]="--priority 12" [--policy]="--policy fifo" [--rttime]="--rttime 100000"
		[--timeout]="--timeout 300" [--no-reset-on-fork]="--no-reset-on-fork" [--strict]="--strict"
		[--map]="--map offset --top 70" [--top]="--top 70" [--runaway]="--runaway kill"
		[--inherit]="--inherit" [--verbose]="--verbose" [--quiet]="--quiet" [--trace]="--trace"
		[--only]="--only libjack,libffado" [--nice-fallback]="--nice-fallback=refused"
		[--reset-on-fork]="--reset-on-fork" [--require-rt]="-p 10 --require-rt"
		[--no-keep]="--no-keep"
	)
	local -a starts_nothing=(--check --pid --status --pairs --all-tasks --print-preload --help --version)
	local opt args
	run -0 "$RTRUN" --help
	for opt in $(grep -oE -- '--[a-z][a-z-]+' <<<"$output" | sort -u); do
		[[ " ${starts_nothing[*]} " == *" $opt "* ]] && continue
		[[ -n ${sample[$opt]:-} ]] || { echo "rtrun $opt: no sample in this test"; return 1; }
		read -ra args <<<"${sample[$opt]}"
		run -0 "$SD" "${args[@]}" org.rtshim.Synth
		[ "$(exec_line)" = "rtrun ${sample[$opt]} /usr/lib/synth/synth %U" ] ||
			{ echo "$opt: Exec=$(exec_line)"; return 1; }
	done
	# the README's JACK recipe, short options, optional values, and options in any order
	run -0 "$SD" --map offset --top 70 -vp 10 --nice-fallback --only 'libjack*' org.rtshim.Synth
	[ "$(exec_line)" = 'rtrun --map offset --top 70 -vp 10 --nice-fallback --only "libjack*" /usr/lib/synth/synth %U' ]
	run -0 "$SD" org.rtshim.Synth -q --nice-fallback=always
	[ "$(exec_line)" = "rtrun -q --nice-fallback=always /usr/lib/synth/synth %U" ]
	[ "$(exec_line 2)" = "rtrun -q --nice-fallback=always /usr/lib/synth/synth --new" ]
	run -0 "$SD" --nice-fallback off org.rtshim.Synth
	[ "$(exec_line)" = "rtrun --nice-fallback off /usr/lib/synth/synth %U" ]
	run -0 desktop-file-validate "$O"
}

@test "rtshim-desktop says what is wrong with a path that is a directory or cannot be read (exit 1)" {
	run -1 "$SD" "$XDG/sys/applications/"
	[ "$output" = "rtshim-desktop: $XDG/sys/applications/ is a directory, not a desktop entry file" ]
	run -1 "$SD" "$XDG/sys/none.desktop"
	[ "$output" = "rtshim-desktop: $XDG/sys/none.desktop: no such file" ]
	# unreadable: as a user other than the file's owner (root reads everything)
	local d
	d=$(mktemp -d /tmp/rtshim-desktop.XXXXXX)
	cp "$SD" "$SRC" "$d/"
	chmod 755 "$d" "$d/rtshim-desktop"
	chmod 600 "$d/org.rtshim.Synth.desktop"
	mkdir -m 777 "$d/home"
	run -1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME="$d/home" XDG_DATA_HOME="$d/home" PATH="$PFX/bin:$PATH" \
		"$d/rtshim-desktop" "$d/org.rtshim.Synth.desktop"
	rm -rf "$d"
	[ "$output" = "rtshim-desktop: $d/org.rtshim.Synth.desktop: cannot read it (permission denied)" ]
}

@test "rtshim-desktop refuses options that start no program and bad ones, with rtrun's reason (exit 2)" {
	local a
	for a in --check --ch "--pid 1" --pid=1 --status --pairs --all-tasks -a -va --print-preload --print-p --help-me --vers; do
		# shellcheck disable=SC2086
		run -2 "$SD" $a org.rtshim.Synth
		[[ $output == *"starts no program"* || $output == *"rtrun: "* ]] || { echo "$a: $output"; return 1; }
	done
	run -2 "$SD" --map sideways org.rtshim.Synth
	[[ $output == "rtshim-desktop: rtrun: invalid --map value 'sideways'"* ]]
	run -2 "$SD" --no-such-option org.rtshim.Synth
	[[ $output == "rtshim-desktop: rtrun: unrecognized or ambiguous option '--no-such-option'"* ]]
	run -2 "$SD" --top org.rtshim.Synth
	[[ $output == *"invalid --top value 'org.rtshim.Synth'"* ]]
	[ ! -e "$O" ]
}

@test "rtshim-desktop writes rtrun from PATH, and an absolute path only with --rtrun" {
	# not the build tree's build/bin/rtrun beside scripts/: the override must survive the tree moving
	run -0 "$SD" -p 10 org.rtshim.Synth
	[ "$(exec_line)" = "rtrun -p 10 /usr/lib/synth/synth %U" ]
	run -0 "$SD" --rtrun "$RTRUN" -p 10 org.rtshim.Synth
	[ "$(exec_line)" = "$(readlink -f "$RTRUN") -p 10 /usr/lib/synth/synth %U" ]
	# no rtrun anywhere (a copy of the script outside the tree, a PATH without rtrun): options
	# cannot be checked; without options a warning, the entry is written
	local nortrun
	nortrun=$(path_without_rtrun)
	cp "$SD" "$BATS_TEST_TMPDIR/rtshim-desktop"
	run -1 env PATH="$nortrun" "$BATS_TEST_TMPDIR/rtshim-desktop" -p 10 org.rtshim.Synth
	[[ $output == *"rtrun is not in PATH"* ]]
	run -0 --separate-stderr env PATH="$nortrun" "$BATS_TEST_TMPDIR/rtshim-desktop" org.rtshim.Synth
	# shellcheck disable=SC2154 # stderr: set by bats' run --separate-stderr
	[[ $stderr == *"rtrun is not in PATH here"* ]]
	[ "$(exec_line)" = "rtrun /usr/lib/synth/synth %U" ]
}

# a PATH with every program of /usr/bin and /bin but rtrun (the machine may have rtshim installed)
path_without_rtrun() {
	local d=$BATS_TEST_TMPDIR/nortrun f
	mkdir -p "$d"
	for f in /usr/bin/* /bin/*; do
		[[ ${f##*/} == rtrun || -e $d/${f##*/} ]] || ln -s "$f" "$d/${f##*/}"
	done
	echo "$d"
}

@test "the launcher script of README, rtrun(1) and rtshim-desktop(1) runs the program through rtrun, and plainly without rtrun" {
	local script=$BATS_TEST_TMPDIR/app man line
	# README's sh block that starts with #!/bin/sh; the program: printenv, which shows LD_PRELOAD
	awk '/^```sh$/ { getline; if ($0 == "#!/bin/sh") p = 1 } p && /^```$/ { exit } p' \
		"$RTSHIM_ROOT/README.md" >"$script"
	grep -q 'rtrun /usr/lib/app/app' "$script"
	# rtrun(1), rtshim-desktop(1) and rtshim-desktop --help show the same lines
	local page text
	for page in rtrun.1 rtshim-desktop.1; do
		man=$(MANWIDTH=200 man -l "$RTSHIM_ROOT/man/$page" 2>/dev/null)
		while IFS= read -r line; do
			[[ $man == *"$line"* ]] || { echo "$page lacks: $line"; return 1; }
		done <"$script"
	done
	text=$("$SD" --help)
	while IFS= read -r line; do
		[[ $text == *"$line"* ]] || { echo "rtshim-desktop --help lacks: $line"; return 1; }
	done <"$script"
	sed -i "s|/usr/lib/app/app|/usr/bin/printenv|g" "$script"
	chmod 755 "$script"
	# with rtrun: the shim is preloaded into the program; without: the program runs as it is
	run -0 env -u LD_PRELOAD PATH="$PFX/bin:$PATH" "$script" LD_PRELOAD
	[[ $output == *librtshim.so* ]]
	run -1 env -u LD_PRELOAD PATH="$(path_without_rtrun)" "$script" LD_PRELOAD
	[ -z "$output" ]
}

@test "rtshim-desktop from the build tree, rtrun not installed: the build tree's rtrun checks the options and goes in Exec" {
	# a source tree of its own (Makefile, scripts/rtshim-desktop, build/bin/rtrun: the rtrun
	# under test): this run's build may be elsewhere (B=..., as the package's tests build)
	local tree=$BATS_TEST_TMPDIR/tree built
	mkdir -p "$tree/scripts" "$tree/build/bin"
	cp "$RTSHIM_ROOT/Makefile" "$tree/"
	cp "$SD" "$tree/scripts/"
	ln -s "$RTRUN" "$tree/build/bin/rtrun"
	built=$(readlink -f "$tree/build/bin/rtrun")
	[ -x "$built" ]
	run -0 --separate-stderr env PATH="$(path_without_rtrun)" "$tree/scripts/rtshim-desktop" -p 10 org.rtshim.Synth
	[ "$stderr" = "rtshim-desktop: warning: rtrun is not installed (not in PATH): Exec runs this build tree's $built; after make install (or the rtshim package), write the entry again" ]
	[ "$(exec_line)" = "$built -p 10 /usr/lib/synth/synth %U" ]
	run -2 env PATH="$(path_without_rtrun)" "$tree/scripts/rtshim-desktop" -p 100 org.rtshim.Synth
	[[ $output == "rtshim-desktop: rtrun: invalid priority '100'"* ]]
}

@test "rtshim-desktop --version: the release of the Makefile and of rtrun --version" {
	run -0 "$SD" --version
	local v
	v=$(sed -n 's/^VERSION *:= *//p' "$RTSHIM_ROOT/Makefile")
	[ "$output" = "rtshim-desktop (rtshim) $v" ]
	run -0 "$SD" -V
	[ "$output" = "rtshim-desktop (rtshim) $v" ]
	run -2 "$SD" --version extra
	[ "$("$RTRUN" --version)" = "rtrun (rtshim) $v" ]
}

@test "rtshim-desktop records the rtrun options in the override (X-Rtshim-Options)" {
	run -0 "$SD" --map offset --top 70 org.rtshim.Synth
	grep -qx 'X-Rtshim-Options=--map offset --top 70' "$O"
	run -0 desktop-file-validate "$O"
	run -0 "$SD" org.rtshim.Synth
	grep -qx 'X-Rtshim-Options=' "$O"
	run -0 desktop-file-validate "$O"
}

@test "rtshim-desktop --list: ok, then stale when the original is newer or its Exec changed, orphaned when gone" {
	run -0 "$SD" -p 10 org.rtshim.Synth
	run -0 "$SD" --list
	[ "$output" = "org.rtshim.Synth.desktop"$'\t'"ok"$'\t'"$SRC"$'\t'"-p 10" ]
	# a package update: newer file, same content
	touch -d '+1 minute' "$SRC"
	run -0 "$SD" --list
	[[ $output == "org.rtshim.Synth.desktop"$'\t'"stale"$'\t'* ]]
	# a package update that keeps an old time stamp (dpkg installs the packaged mtime)
	run -0 "$SD" -p 10 org.rtshim.Synth
	write_entry /usr/lib/synth/synth2
	touch -d '2001-01-01' "$SRC"
	run -0 "$SD" --list
	[[ $output == "org.rtshim.Synth.desktop"$'\t'"stale"$'\t'* ]]
	rm "$SRC"
	run -0 "$SD" --list
	[[ $output == "org.rtshim.Synth.desktop"$'\t'"orphaned"$'\t'* ]]
}

@test "rtshim-desktop --refresh rewrites stale overrides from the original, keeping their rtrun options" {
	run -0 "$SD" --map offset --top 70 org.rtshim.Synth
	write_entry /usr/lib/synth/synth2
	touch -d '2001-01-01' "$SRC"
	run -0 "$SD" --refresh
	[[ $output == *"refreshed $O"* ]]
	[ "$(exec_line)" = "rtrun --map offset --top 70 /usr/lib/synth/synth2 %U" ]
	[ "$(exec_line 2)" = "rtrun --map offset --top 70 /usr/lib/synth/synth2 --new" ]
	grep -qx 'X-Rtshim-Options=--map offset --top 70' "$O"
	run -0 desktop-file-validate "$O"
	run -0 "$SD" --list
	[[ $output == *$'\t'"ok"$'\t'* ]]
	# nothing stale: nothing rewritten
	local before
	before=$(stat -c %Y.%Z "$O")
	run -0 "$SD" --refresh
	[[ $output == *"no stale overrides"* ]]
	[ "$(stat -c %Y.%Z "$O")" = "$before" ]
	# --rtrun recorded too; a named refresh rewrites even an up-to-date one
	run -0 "$SD" --rtrun "$RTRUN" -q org.rtshim.Synth
	run -0 "$SD" --refresh org.rtshim.Synth
	[ "$(exec_line)" = "$(readlink -f "$RTRUN") -q /usr/lib/synth/synth2 %U" ]
	# options cannot be changed by --refresh; an orphaned override is reported (exit 1)
	run -2 "$SD" --refresh -p 3
	rm "$SRC"
	run -1 "$SD" --refresh
	[[ $output == *"is gone"*"--remove org.rtshim.Synth.desktop"* ]]
	[ -e "$O" ]
}

@test "man page rtshim-desktop(1) renders without warnings and documents the options, exit status, environment, files" {
	run -0 groff -man -ww -z "$RTSHIM_ROOT/man/rtshim-desktop.1"
	[ -z "$output" ]
	local text o
	text=$(MANWIDTH=200 man -l "$RTSHIM_ROOT/man/rtshim-desktop.1" 2>/dev/null)
	for o in --rtrun --print --force --remove --list --refresh --help stale orphaned \
		X-Rtshim-Options X-Rtshim-Source "EXIT STATUS" ENVIRONMENT FILES XDG_DATA_HOME \
		XDG_DATA_DIRS PATH "--map offset --top 70"; do
		[[ $text == *"$o"* ]] || { echo "rtshim-desktop(1) lacks $o"; return 1; }
	done
}

# launch_report FILE: start desktop entry FILE as a launcher does (gio launch), wait for the
# reporter's file and print it: its arguments, directory and environment (the launcher's own
# variables and LD_PRELOAD left out)
launch_report() {
	local i
	rm -f "$REP.out"
	gio launch "$1" >/dev/null 2>&1 </dev/null
	for ((i = 0; i < 200; i++)); do [ -f "$REP.out" ] && break; sleep 0.05; done
	[ -f "$REP.out" ] || { echo "$1 did not start: Exec=$(sed -n 's/^Exec=//p' "$1")"; return 1; }
	grep -v -e '^env=GIO_LAUNCHED_DESKTOP_FILE' -e '^env=LD_PRELOAD=' -e '^env=RTRUN_COMMAND_PID=' "$REP.out"
}

@test "rtshim-desktop: an Exec line behind env (options, -S, assignments) starts the program as before, through rtrun" {
	command -v gio >/dev/null || skip "gio not installed"
	REP=$BATS_TEST_TMPDIR/rep
	local d=$BATS_TEST_TMPDIR/dir line before after
	mkdir -p "$d"
	printf '%s\n' '#!/bin/sh' \
		"{ printf 'arg=%s\n' \"\$0\" \"\$@\"; printf 'cwd=%s\n' \"\$(pwd)\"; env -0 | sort -z | tr '\0\n' '\n ' | sed 's/^/env=/'; } >$REP.tmp" \
		"mv $REP.tmp $REP.out" >"$REP"
	chmod 755 "$REP"
	cp "$REP" "$d/rep"
	local -a lines=(
		"env \"FOO=a b\" $REP \"x y\" z"
		"env -C $d ./rep a"
		"env --chdir $d ./rep a"
		"env --chdir=$d ./rep a"
		"env -S \"$REP x 'y z'\""
		"env -S \"-u HOME A=1\" $REP b"
		"env -iS\"A=1 $REP q\" tail"
		"env -i -u FOO -- A=1 $REP a"
		"env -u HOME BAR=1 $REP"
		"env -v - C=3 $REP"
	)
	for line in "${lines[@]}"; do
		write_entry x
		sed -i "s|^Exec=x %U|Exec=$line|" "$SRC"
		run -0 desktop-file-validate "$SRC"
		before=$(launch_report "$SRC") || { echo "$before"; return 1; }
		run -0 "$SD" --rtrun "$RTRUN" org.rtshim.Synth
		run -0 desktop-file-validate "$O"
		after=$(launch_report "$O") || { echo "$after"; return 1; }
		[ "$before" = "$after" ] || {
			echo "Exec=$line became Exec=$(exec_line)"
			diff <(echo "$before") <(echo "$after")
			return 1
		}
		grep -q '^env=LD_PRELOAD=.*librtshim.so' "$REP.out" ||
			{ echo "no shim in Exec=$(exec_line)"; return 1; }
	done
}

# write_reporter: REP, a program that writes its arguments and whether the shim is mapped in it
# (shim=1/0) to $REP.out
write_reporter() {
	REP=$BATS_TEST_TMPDIR/rep
	printf '%s\n' '#!/bin/sh' \
		"{ printf 'arg=%s\n' \"\$0\" \"\$@\"; if grep -q 'librtshim\.so' /proc/\$\$/maps; then echo shim=1; else echo shim=0; fi; } >$REP.tmp" \
		"mv $REP.tmp $REP.out" >"$REP"
	chmod 755 "$REP"
}

@test "an override still starts the program, plainly and with its arguments, when rtrun is gone (rtshim removed)" {
	command -v gio >/dev/null || skip "gio not installed"
	write_reporter
	write_entry "$REP"
	sed -i "s|^Exec=$REP %U|Exec=$REP \"a b\" %U|" "$SRC"
	# rtrun in PATH, as installed: Exec runs it when it is there, else drops its words
	run -0 "$SD" -p 10 --only 'libjack*' org.rtshim.Synth
	run -0 desktop-file-validate "$O"
	grep -qxF "Exec=sh -c \"command -v \\\\\"\\\\\$1\\\\\" >/dev/null || shift 5; exec \\\\\"\\\\\$@\\\\\"\" sh rtrun -p 10 --only \"libjack*\" $REP \"a b\" %U" "$O"
	local started="arg=$REP"$'\n'"arg=a b"
	PATH="$PFX/bin:$PATH" run -0 launch_report "$O"
	[ "$output" = "$started"$'\n'"shim=1" ]
	PATH="$(path_without_rtrun)" run -0 launch_report "$O"
	[ "$output" = "$started"$'\n'"shim=0" ]
	# an absolute --rtrun that is gone (an uninstalled prefix)
	cp "$RTRUN" "$BATS_TEST_TMPDIR/rtrun"
	run -0 "$SD" --rtrun "$BATS_TEST_TMPDIR/rtrun" org.rtshim.Synth
	rm "$BATS_TEST_TMPDIR/rtrun"
	PATH="$(path_without_rtrun)" run -0 launch_report "$O"
	[ "$output" = "$started"$'\n'"shim=0" ]
	# --refresh writes the same form
	write_entry "$REP"
	touch -d '2001-01-01' "$SRC"
	run -0 "$SD" --refresh
	PATH="$(path_without_rtrun)" run -0 launch_report "$O"
	[ "$output" = "arg=$REP"$'\n'"shim=0" ]
}

@test "LD_PRELOAD in a desktop entry: rtrun --print-preload's value, quoted as rtshim(7) shows, loads the shim under gio launch" {
	command -v gio >/dev/null || skip "gio not installed"
	write_reporter
	local v
	v=$("$RTRUN" --print-preload)
	[[ $v == *'/$LIB/rtshim/librtshim.so' ]]
	# the line of rtshim(7), with this tree's value: $ escaped inside "...", the backslash doubled
	grep -qF 'Exec=env "LD_PRELOAD=/usr/\\$LIB/rtshim/librtshim.so" app %U' \
		<(MANWIDTH=200 man -l "$RTSHIM_ROOT/man/rtshim.7" 2>/dev/null)
	write_entry x
	sed -i "s|^Exec=x %U|Exec=env \"LD_PRELOAD=${v//\$/\\\\\\\\\$}\" $REP a %U|" "$SRC"
	run -0 desktop-file-validate "$SRC"
	run -0 launch_report "$SRC"
	[ "$output" = "arg=$REP"$'\n'"arg=a"$'\n'"shim=1" ]
	# unquoted, the same value is not a valid entry
	sed -i 's|^Exec=env "\(LD_PRELOAD=[^"]*\)"|Exec=env \1|' "$SRC"
	run -1 desktop-file-validate "$SRC"
}
