#!/usr/bin/env bats
# The manual pages as shipped: they carry one date (the release's, from
# debian/changelog), rtrun(1) has FILES and REPORTING BUGS, and every page is listed where the
# README and the package description list them.  No root, no bus.

bats_require_minimum_version 1.5.0
load common

PAGES=(man/rtrun.1 man/rtshim-desktop.1 man/rtshim.7)

@test "every man page carries the release date of debian/changelog" {
	local release p date
	release=$(date -u -d "$(sed -n 's/^ -- .*>  //p' "$RTSHIM_ROOT/debian/changelog" | head -n 1)" +%F)
	for p in "${PAGES[@]}"; do
		date=$(awk '$1 == ".TH" { print $4; exit }' "$RTSHIM_ROOT/$p" | tr -d '"')
		[ "$date" = "$release" ] || { echo "$p: .TH date '$date', release $release"; return 1; }
	done
}

@test "rtrun(1) has FILES (shim, client, completion) and REPORTING BUGS" {
	local text
	text=$(MANWIDTH=200 man -l "$RTSHIM_ROOT/man/rtrun.1" 2>/dev/null)
	local s
	for s in FILES "REPORTING BUGS" "rtshim/librtshim.so" "rtshim/librtshim-client.so" \
		bash-completion/completions/rtrun "rtshim-desktop(1)"; do
		[[ $text == *"$s"* ]] || { echo "rtrun(1) lacks $s"; return 1; }
	done
}

@test "README's layout table and debian/control's description name every man page" {
	local layout desc p name
	layout=$(grep '^| `man/`' "$RTSHIM_ROOT/README.md")
	desc=$(sed -n '/^Package: rtshim$/,/^$/p' "$RTSHIM_ROOT/debian/control")
	for p in "${PAGES[@]}"; do
		name=${p#man/}
		name="${name%.*}(${name##*.})"
		[[ $layout == *"$name"* ]] || { echo "README layout lacks $name"; return 1; }
		[[ $desc == *"$name"* ]] || { echo "debian/control lacks $name"; return 1; }
	done
}
