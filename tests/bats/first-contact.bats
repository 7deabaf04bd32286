#!/usr/bin/env bats
# First contact: the README's quick start (`make demo`, `make check`) on a machine where nothing
# is installed yet.  Both install the build dependencies first (scripts/install-deps), so what
# they build must not use what pkg-config said before that.  Each test runs the top-level target
# in a scratch copy of the tree with:
#   - a PKG_CONFIG stand-in that says "not found" until the install-deps stand-in has run, and
#     afterwards answers as pkg-config does plus one marker -I for dbus-1's --cflags;
#   - INSTALL_DEPS= that stand-in; BUILD_ONLY=1 (build what would run, do not run it);
#   - CC= a wrapper that logs every compiler command line (and, for make check, writes empty
#     outputs instead of compiling: the flags are what is checked, and it stays fast).
# Then the README's first screen: its order (install, rtrun --check, rtrun PROGRAM, what it buys,
# the quick start) and that make install installs what it says.  No root, no bus, no testbed.

bats_require_minimum_version 1.5.0
load common

setup() {
	TREE=$(mktemp -d /tmp/rtshim-first-contact.XXXXXX)
	STUB=$TREE/.stub
	mkdir -p "$TREE/src" "$STUB/dbus-include"
	tar -C "$RTSHIM_ROOT" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$TREE/src" -xf -
	local real
	real=$(command -v pkg-config)
	cat >"$STUB/pkg-config" <<EOF
#!/usr/bin/env bash
# PKG_CONFIG stand-in: nothing is installed until $STUB/deps-installed exists
set -euo pipefail
if [[ ! -e $STUB/deps-installed ]]; then
	echo "Package \${*: -1} was not found in the pkg-config search path." >&2
	exit 1
fi
out=\$($real "\$@")
[[ " \$* " == *" --cflags "* && " \$* " == *" dbus-1 "* ]] && out+=" -I$STUB/dbus-include"
echo "\$out"
EOF
	cat >"$STUB/install-deps" <<EOF
#!/usr/bin/env bash
set -euo pipefail
touch $STUB/deps-installed
echo "install-deps: done"
EOF
	# CC_NOOP=1: log, then create the output file empty instead of compiling (sh: it runs a few
	# hundred times)
	cat >"$STUB/cc" <<EOF
#!/bin/sh
set -eu
out= prev=
for a in "\$@"; do [ "\$prev" != -o ] || out=\$a; prev=\$a; done
[ -z "\$out" ] || printf '%s\n' "\$*" >>$STUB/cc.log
if [ -n "\$out" ] && [ -n "\${CC_NOOP:-}" ]; then
	case \$out in */*) mkdir -p "\${out%/*}" ;; esac
	: >"\$out"
	exit 0
fi
exec cc "\$@"
EOF
	chmod 755 "$STUB/pkg-config" "$STUB/install-deps" "$STUB/cc"
}

teardown() { rm -rf "$TREE"; }

# top_make TARGET [VAR=VALUE...]: the top-level make of a user (nothing of this suite's
# environment: no B, MULTIARCH, MAKEFLAGS), in the scratch tree
top_make() {
	env -i PATH="$PATH" HOME="$HOME" ${CC_NOOP:+CC_NOOP=1} \
		make -C "$TREE/src" --no-print-directory "$@" PKG_CONFIG="$STUB/pkg-config" \
		INSTALL_DEPS="$STUB/install-deps" BUILD_ONLY=1 CC="$STUB/cc"
}

# every_client_compile_has_dbus_flags: each compile of a daemon-client object got the -I of
# pkg-config's answer after install-deps; prints the offending line otherwise
every_client_compile_has_dbus_flags() {
	local n=0 line
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line == *"-I$STUB/dbus-include"* ]] || { echo "compiled without dbus-1's flags: $line"; return 1; }
	done < <(grep -E -- '-c -o [^ ]*/obj/[^ ]*/daemon-client/[^ ]*\.o' "$STUB/cc.log")
	((n > 0)) || { echo "no daemon-client object was compiled"; return 1; }
	echo "$n daemon-client compiles, all with dbus-1's flags"
}

@test "make demo on a machine without the build dependencies: builds the demo's programs, quietly, the first time" {
	run -0 top_make demo
	printf '%s\n' "$output"
	every_client_compile_has_dbus_flags
	[ -x "$TREE/src/build/bin/rtrun" ]
	[ -f "$TREE/src/build/lib/$MULTIARCH/rtshim/librtshim.so" ]
	[ -f "$TREE/src/build/lib/$MULTIARCH/rtshim/librtshim-client.so" ]
	# what a user reads: no compiler command lines, no make chatter
	run grep -cE "$STUB/cc|Entering directory|Nothing to be done" <<<"$output"
	[ "$output" = 0 ]
	# the demo runs 64-bit jackd: no 32-bit build, no probes, unit tests or fuzzers
	[ ! -e "$TREE/src/build/lib/i386-linux-gnu" ]
	[ ! -e "$TREE/src/build/tests" ]
	run grep -c -- '-m32\|fuzz\|tests/' "$STUB/cc.log"
	[ "$output" = 0 ]
	run -0 "$TREE/src/build/bin/rtrun" --version
}

@test "make check on a machine without the build dependencies: every build step gets dbus-1's flags" {
	CC_NOOP=1 run -0 top_make check FUZZ_CC="$STUB/cc"
	every_client_compile_has_dbus_flags
	# the normal, the ASan and the TSan build all compiled the client
	local b
	for b in build build-asan build-tsan; do
		grep -qE -- "-c -o $b/obj/$MULTIARCH/daemon-client/" "$STUB/cc.log" ||
			{ echo "$b: no daemon-client compile"; return 1; }
	done
}

@test "make bench on a machine without the build dependencies: builds with dbus-1's flags" {
	CC_NOOP=1 run -0 top_make bench FUZZ_CC="$STUB/cc"
	every_client_compile_has_dbus_flags
}

# section_line TITLE: the line number of README's "## TITLE" heading
section_line() { grep -n -m1 -x "## $1" "$RTSHIM_ROOT/README.md" | cut -d: -f1; }
# section TITLE: README's section "## TITLE", up to the next "## " heading
section() { awk -v h="## $1" '$0 == h { on = 1; next } on && /^## / { exit } on' "$RTSHIM_ROOT/README.md"; }

@test "README's first screen: install, rtrun --check, rtrun PROGRAM, what it buys (the benchmark's figures and picture), then the quick start" {
	local order=("Install" "Will my programs get realtime here?" "Run your program through rtrun"
		"What it buys" "Quick start (Debian 12, as root)" "Using it") prev=0 n t
	for t in "${order[@]}"; do
		n=$(section_line "$t")
		[[ -n $n ]] || { echo "README has no '## $t'"; return 1; }
		((n > prev)) || { echo "'## $t' (line $n) comes before what should precede it"; return 1; }
		prev=$n
	done
	# what it buys, with its picture, within the first 80 lines
	n=$(grep -n -m1 '](docs/bench/latency.png)' "$RTSHIM_ROOT/README.md" | cut -d: -f1)
	((n < 80)) || { echo "the picture is at line $n"; return 1; }
	[ -f "$RTSHIM_ROOT/docs/bench/latency.png" ]
	# the figures are the latest benchmark's (its summary sentence, rewritten by make bench)
	local bench plain rt root buys
	bench=$(sed -n '/<!-- bench-table:begin -->/,/<!-- bench-table:end -->/p' "$RTSHIM_ROOT/README.md" |
		grep -o 'had [0-9]* xruns in [0-9]* s without rtrun and [0-9]* with it (root: [0-9]*)')
	read -r plain rt root < <(sed -E 's/had ([0-9]+) xruns in [0-9]+ s without rtrun and ([0-9]+) with it \(root: ([0-9]+)\)/\1 \2 \3/' <<<"$bench")
	buys=$(section "What it buys" | tr '\n' ' ')
	[[ $buys == *"**$plain xruns in 14 s without rtrun, $rt under rtrun, $root as root**"* ]] ||
		{ echo "What it buys does not say $plain / $rt / $root:"; echo "$buys"; return 1; }
	# each step's command, in its section
	[[ $(section "Install") == *"make && make install"* && $(section "Install") == *"apt install ../librtshim_"* ]]
	[[ $(section "Will my programs get realtime here?") == *'$ rtrun --check'* ]]
	[[ $(section "Run your program through rtrun") == *"rtrun my-program"* ]]
	# the quick start keeps exactly its two commands
	run -0 bash -c "awk '/^\`\`\`sh/ { on = 1; next } /^\`\`\`/ { on = 0 } on' <<<\"\$1\" | sed 's/ *#.*//; /^ *\$/d'" _ "$(section "Quick start (Debian 12, as root)")"
	[ "$output" = $'make demo\nmake check' ]
}

@test "README's install step: make install puts rtrun, the shim, man pages and completion under PREFIX" {
	local d=$BATS_TEST_TMPDIR/dest f
	run -0 make -C "$RTSHIM_ROOT" --no-print-directory install PREFIX=/usr/local DESTDIR="$d" I386=
	for f in bin/rtrun bin/rtshim-desktop "lib/$MULTIARCH/rtshim/librtshim.so" \
		"lib/$MULTIARCH/rtshim/librtshim-client.so" share/man/man1/rtrun.1 share/man/man7/rtshim.7 \
		share/bash-completion/completions/rtrun; do
		[ -f "$d/usr/local/$f" ] || { echo "make install did not install /usr/local/$f"; return 1; }
	done
	run -0 "$d/usr/local/bin/rtrun" --version
	[[ $output == "rtrun (rtshim) "* ]]
}
