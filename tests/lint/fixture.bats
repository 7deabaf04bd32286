#!/usr/bin/env bats
# Not a suite: the input of tests/lint-bats' self-test (tests/run, suite "lint-bats").  The
# checker must report exactly the lines that end in the marker comment and nothing else: each
# marked line holds an assertion that bats (set -e) would ignore, or an issue number.
# A comment about issue 12 is reported too.  # lint: expected

bats_require_minimum_version 1.5.0

helper() {
	! grep -q x /dev/null # lint: expected
	echo "a helper's last command may be a negation"
	! grep -q x /dev/null
}

@test "a negation before other commands never fails the test" {
	! grep -q root /etc/passwd # lint: expected
	echo after
}

@test "negations in a loop, a group, an if body, after && and ;" {
	for f in /etc/passwd; do ! grep -q root "$f"; done # lint: expected
	{ ! grep -q root /etc/passwd; } # lint: expected
	if true; then
		! grep -q root /etc/passwd # lint: expected
	fi
	true && ! grep -q root /etc/passwd # lint: expected
	true; ! grep -q root /etc/passwd # lint: expected
	! grep -q root /etc/passwd | cat # lint: expected
	! grep -q root /etc/passwd && true # lint: expected
	! grep -q root /etc/passwd # lint: expected
	h=x; [[ $h =~ ^[0-9]+$ ]] && ((h > 1)) # lint: expected
	[[ $h =~ ^[0-9]+$ ]] && ((h > 1)) # lint: expected
	for f in /etc/passwd; do [ -e "$f" ] && [ -r "$f" ]; done # lint: expected
	true && test -e /etc/passwd # lint: expected

	echo "a blank line and this one follow"
}

@test "the last command may be an && list" {
	echo first
	[ -e /etc/passwd ] && grep -q root /etc/passwd
}

@test "the last command may be a negation; one inside a block is refused all the same" {
	if true; then
		! grep -q root /etc/passwd # lint: expected
	fi
}

@test "issue 7: a test name with an issue number" { # lint: expected
	true
}

@test "refused as #12 says" { # lint: expected
	true
}

@test "what can fail is accepted" {
	! grep -q root /etc/passwd || false
	! grep -q root /etc/passwd ||
		{ echo "root found"; return 1; }
	for f in /etc/passwd; do ! grep -q root "$f" || false; done
	run ! grep -q root /etc/passwd
	if ! grep -q nobody-here /etc/passwd; then echo no; fi
	while ! true; do sleep 1; done
	until ! false; do :; done
	[ ! -e /nonexistent ]
	[[ ! -e /nonexistent && ! -d /nonexistent ]]
	((!0))
	[ -e /etc/passwd ] && grep -q root /etc/passwd || false
	if [ -e /etc/passwd ] && grep -q root /etc/passwd; then echo yes; fi
	while [ -e /nonexistent ] && false; do :; done
	x=$(true && echo "&& in a substitution")
	for f in /etc/passwd; do [ -e "$f" ] && break; done
	[[ -n ${x:-} ]] && x=1
	[ -e /etc/passwd ] && grep -q root /etc/passwd
	[[ -e /etc/passwd && -r /etc/passwd ]]
	((1 && 1))
	echo /etc/passwd | { ! grep -q root; }
	x=$(! true; echo "; ! not a command")
	echo 'quoted: ; ! grep' "double: ; ! grep" $'ansi: \' ; ! grep'
	echo "frame #0 in a string, issue 9 in a string" # a trailing comment
	cat <<'C'
! grep -q root /etc/passwd
}
C
	cat <<-C
		! grep -q root /etc/passwd
	C
	cat <<<"! here-string"
	echo "a string
! grep on a second line of the string"
	! grep -q root /etc/passwd
}

# a one-line helper is not read
one() { ! true; echo; }
