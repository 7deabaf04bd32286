#!/usr/bin/env bats
# The bash completions in completions/ (installed by make install and the rtshim package), in a
# bash with bash-completion loaded: rtrun's options and their values, the command after them,
# rtshim-desktop's options and desktop entry IDs.

bats_require_minimum_version 1.5.0
load common

BASH_COMPLETION=/usr/share/bash-completion/bash_completion

setup() {
	[[ -r $BASH_COMPLETION ]] || skip "bash-completion is not installed (scripts/install-deps)"
	mkdir -p "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/xdg/applications"
	# a command of our own, so that command completion does not depend on what is installed
	printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/bin/jac-rtshim-test"
	chmod 755 "$BATS_TEST_TMPDIR/bin/jac-rtshim-test"
	printf '[Desktop Entry]\nType=Application\nName=x\nExec=x\n' \
		>"$BATS_TEST_TMPDIR/xdg/applications/org.rtshim.Synth.desktop"
}

# complete LINE: COMPREPLY, one per line, for the command line LINE (cursor at its end) in a
# fresh bash with bash-completion and the completion of LINE's command loaded (COMPLETE_PATH: its
# PATH, if given).
complete_line() {
	local cmd=${1%% *}
	PATH="${COMPLETE_PATH:-$BATS_TEST_TMPDIR/bin:$PFX/bin:$RTSHIM_ROOT/scripts:/usr/sbin:/usr/bin:/sbin:/bin}" \
		XDG_DATA_DIRS="$BATS_TEST_TMPDIR/xdg" XDG_DATA_HOME="$BATS_TEST_TMPDIR/home" \
		bash --norc --noprofile -c '
		source "$1"
		source "$2"
		compopt() { :; } # outside a real completion bash refuses it
		COMP_LINE=$3 COMP_POINT=${#3}
		read -ra COMP_WORDS <<<"$3"
		[[ $3 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		f=$(complete -p "${COMP_WORDS[0]}" | sed -n "s/.*-F \([^ ]*\).*/\1/p")
		"$f" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$BASH_COMPLETION" "$RTSHIM_ROOT/completions/$cmd" "$1"
}

@test "rtrun --ma<TAB> completes --map; every option of rtrun --help is offered" {
	run -0 complete_line "rtrun --ma"
	[ "$output" = --map ]
	run -0 complete_line "rtrun --"
	local o
	for o in $("$RTRUN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qx -- "$o" <<<"$output" || { echo "not offered: $o"; return 1; }
	done
}

@test "rtrun option values: --map, --runaway, --policy, --nice-fallback=, --pid" {
	run -0 complete_line "rtrun --map "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "clamp offset scale " ]
	run -0 complete_line "rtrun -v --runaway "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "demote kill " ]
	run -0 complete_line "rtrun --policy f"
	[ "$output" = fifo ]
	run -0 complete_line "rtrun --nice-fallback="
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "always off refused " ]
	run -0 complete_line "rtrun --pid "
	grep -qx 1 <<<"$output"
	# --nice-fallback's value as the next word, or the command; then the command
	run -0 complete_line "rtrun --nice-fallback "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "always off refused " ]
	run -0 complete_line "rtrun --nice-fallback alw"
	grep -qx always <<<"$output"
	run -0 complete_line "rtrun --nice-fallback jac-rts"
	[ "$output" = jac-rtshim-test ]
	run -0 complete_line "rtrun --nice-fallback off jac-rts"
	[ "$output" = jac-rtshim-test ]
	run -0 complete_line "rtrun --nice-fallback off chrt --al"
	[ "$output" = --all-tasks ]
	# a value that is free text gets no completion
	run -0 complete_line "rtrun --top "
	[ -z "$output" ]
}

@test "rtrun -v jac<TAB> completes command names; the command's arguments are its own" {
	run -0 complete_line "rtrun -v jac"
	grep -qx jac-rtshim-test <<<"$output"
	run -0 complete_line "rtrun -p 10 --map offset jac-rts"
	[ "$output" = jac-rtshim-test ]
	# after the command, its own completion: chrt's options, not rtrun's
	run -0 complete_line "rtrun -vp 10 chrt --al"
	[ "$output" = --all-tasks ]
	run -0 complete_line "rtrun -- --ma"
	run -1 grep -qx -- --map <<<"$output"
}

@test "rtshim-desktop completion: its options and rtrun's, values, installed entry IDs" {
	run -0 complete_line "rtshim-desktop --ref"
	[ "$output" = --refresh ]
	run -0 complete_line "rtshim-desktop --ma"
	[ "$output" = --map ]
	run -0 complete_line "rtshim-desktop --ch"
	[ -z "$output" ]
	# rtrun's options that start no program are not offered
	run -0 complete_line "rtshim-desktop --pa"
	[ -z "$output" ]
	run -0 complete_line "rtshim-desktop --map "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "clamp offset scale " ]
	run -0 complete_line "rtshim-desktop -p 10 org.rtshim.S"
	[ "$output" = org.rtshim.Synth ]
}

@test "completions sourced from a source tree, rtrun not installed: rtrun's options from the tree's build" {
	local tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/completions" "$tree/build/bin"
	cp "$RTSHIM_ROOT"/completions/* "$tree/completions/"
	ln -s "$RTRUN" "$tree/build/bin/rtrun"
	# a PATH with the machine's programs but rtrun (rtshim may be installed here)
	local nortrun=$BATS_TEST_TMPDIR/nortrun f
	mkdir -p "$nortrun"
	for f in /usr/bin/* /bin/*; do
		[[ ${f##*/} == rtrun || -e $nortrun/${f##*/} ]] || ln -s "$f" "$nortrun/${f##*/}"
	done
	RTSHIM_ROOT=$tree COMPLETE_PATH=$nortrun run -0 complete_line "rtrun --ma"
	[ "$output" = --map ]
	RTSHIM_ROOT=$tree COMPLETE_PATH=$nortrun run -0 complete_line "rtshim-desktop --ma"
	[ "$output" = --map ]
}

@test "make install puts the completions where bash-completion loads them; the rtshim package ships them" {
	local d=$BATS_TEST_TMPDIR/dest
	run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$B" DESTDIR="$d" PREFIX=/usr install
	# bash-completion's on-demand loader looks in $XDG_DATA_DIRS/bash-completion/completions
	run -0 env XDG_DATA_DIRS="$d/usr/share" bash --norc --noprofile -c '
		source "$1"
		for c in rtrun rtshim-desktop; do _completion_loader "$c"; complete -p "$c"; done' \
		bash "$BASH_COMPLETION"
	[[ ${lines[0]} == "complete -F _rtrun rtrun" ]]
	[[ ${lines[1]} == "complete -F _rtshim_desktop rtshim-desktop" ]]
	grep -qx usr/share/bash-completion/completions/rtrun "$RTSHIM_ROOT/debian/rtshim.install"
	grep -qx usr/share/bash-completion/completions/rtshim-desktop "$RTSHIM_ROOT/debian/rtshim.install"
	run -0 env -u MAKEFLAGS -u MAKELEVEL make -s -C "$RTSHIM_ROOT" B="$B" DESTDIR="$d" PREFIX=/usr uninstall
	[ ! -e "$d/usr/share/bash-completion/completions/rtrun" ]
}
