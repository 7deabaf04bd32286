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

# entry_of TEXT NAME: the paragraph of a rendered tagged list (man page or --help) that starts
# with NAME, tag line included, up to the next tag, as one line
entry_of() {
	awk -v name="$2" '
		function indent(s) { match(s, /^ */); return RLENGTH }
		on && NF && indent($0) <= tag { exit }
		!on && index($0, name) == indent($0) + 1 { on = 1; tag = indent($0); print; next }
		on { print }' <<<"$1" | tr -s ' \n' '  '
}

# defaults_in TEXT: every default the text states ("default 500", "default: asked",
# "warn (default)", "refused (the shim's default ...)"), one per line
defaults_in() {
	grep -oE "[(,;] ?default:? [A-Za-z0-9]+|[A-Za-z0-9]+ \((the shim's )?default[):,]" <<<"$1" |
		sed -E 's/^[(,;] ?default:? //; s/ \(.*//'
}

# says_default WHERE TEXT DEFAULT: TEXT states DEFAULT as its default, and no other
says_default() {
	local found
	found=$(defaults_in "$2" | sort -u)
	[ "$found" = "$3" ] || { printf '%s says default "%s", the shim uses "%s":\n%s\n' \
		"$1" "${found//$'\n'/, }" "$3" "$2"; return 1; }
}

@test "every RTSHIM_* default is the same in the shim, README, rtrun(1), rtshim(7) and rtrun --help" {
	local rtrun1 rtshim7 help readme var d cell opt n=0
	rtrun1=$(MANWIDTH=2000 man -l "$RTSHIM_ROOT/man/rtrun.1" 2>/dev/null)
	rtshim7=$(MANWIDTH=2000 man -l "$RTSHIM_ROOT/man/rtshim.7" 2>/dev/null)
	help=$("$RTRUN" --help)
	readme=$(sed -n '/^### Configuration/,/^### /p' "$RTSHIM_ROOT/README.md")
	# the option that sets each variable and that --help describes with a value (flags have none)
	declare -A option=([RTSHIM_TIMEOUT_MS]=--timeout [RTSHIM_RTTIME_US]=--rttime
		[RTSHIM_POLICY]=--policy [RTSHIM_PRIO_MAP]=--map [RTSHIM_TOP]=--top
		[RTSHIM_RUNAWAY]=--runaway [RTSHIM_NICE_FALLBACK]=--nice-fallback)
	for var in RTSHIM_LOG RTSHIM_TIMEOUT_MS RTSHIM_RTTIME_US RTSHIM_RESET_ON_FORK RTSHIM_STRICT \
		RTSHIM_POLICY RTSHIM_PRIO_MAP RTSHIM_TOP RTSHIM_RUNAWAY RTSHIM_INHERIT \
		RTSHIM_NICE_FALLBACK RTSHIM_TRACE; do
		# the behaviour: what the shim itself falls back to for a bad value
		d=$(env "$var=@bad" LD_PRELOAD="$SHIM" chrt -f 5 true 2>&1 | sed -n 's/.*: using the default //p')
		[ -n "$d" ] || { echo "$var: the shim named no default"; return 1; }
		# README's configuration table: the default column of the variable's row (a row of
		# two variables has two comma-separated defaults)
		cell=$(awk -F' [|] ' -v v="\`$var\`" 'index($1, v) {
			n = split($1, names, ", "); split($3, ds, ", ")
			for (i = 1; i <= n; i++) if (names[i] ~ v) print ds[i] }' <<<"$readme" | tr -d '`')
		[ "$cell" = "$d" ] || { echo "README: $var default '$cell', the shim uses '$d'"; return 1; }
		says_default "rtrun(1) $var" "$(entry_of "$rtrun1" "$var")" "$d"
		says_default "rtshim(7) $var" "$(entry_of "$rtshim7" "$var")" "$d"
		opt=${option[$var]:-}
		if [[ -n $opt ]]; then
			says_default "rtrun --help $opt" "$(entry_of "$help" "$opt")" "$d"
		fi
		n=$((n + 1))
	done
	[ "$n" = 12 ]
}

@test "rtkit's burst limit is the one rtkit-daemon --help states, wherever it is given" {
	local limit hits
	limit=$(/usr/libexec/rtkit-daemon --help 2>&1 |
		sed -n 's/.*--actions-per-burst-max=.*(\([0-9]*\)).*/\1/p')
	[ "$limit" = 25 ]
	hits=$(cd "$RTSHIM_ROOT" && grep -rnoE "[0-9]+ requests? (per|/) 20 ?s" README.md man wrapper \
		shim daemon-client scripts tests docs)
	[ -n "$hits" ]
	run grep -vE ":$limit requests? (per|/) 20 ?s$" <<<"$hits"
	[ -z "$output" ] || { echo "not $limit:"; echo "$output"; return 1; }
}
