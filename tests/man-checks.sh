# man-checks.sh: the manual page checks the docs tests share (sourced after tap.sh, not run).
#   man_version TOOL MAN VERSION   the man page's .TH names "TOOL VERSION"
#   man_groff MAN                  groff -man -ww formats it without a warning
#   man_installed TOOL MAN BUILD SCRATCH
#                                  meson install (into SCRATCH/root, nothing rebuilt) puts the
#                                  binary in bin/ and the man page in share/man/man1/
man_version() {
	local tool=$1 man=$2 version=$3 upper
	upper=$(echo "$tool" | tr '[:lower:]' '[:upper:]')
	grep -q "^\.TH $upper 1 .*\"$tool $version\"" "$man" && ok "the man page is of version $version" ||
		not_ok "the man page is of version $version" "$(grep '^\.TH' "$man")"
}
man_groff() {
	if command -v groff >/dev/null; then
		local warn
		warn=$(groff -man -ww -z "$1" 2>&1)
		[ -z "$warn" ] && ok "groff -man -ww formats the man page without a warning" ||
			not_ok "groff -man -ww formats the man page without a warning" "$warn"
	else
		skip "groff -man -ww" "groff not installed"
	fi
}
man_installed() {
	local tool=$1 man=$2 build=$3 t=$4 bin inst
	if meson install -C "$build" --no-rebuild --destdir "$t/root" >"$t/install.log" 2>&1; then
		bin=$(find "$t/root" -path "*/bin/$tool" -type f | head -1)
		inst=$(find "$t/root" -path "*/man1/$tool.1" -type f | head -1)
		[ -n "$bin" ] && [ -x "$bin" ] && ok "meson install puts $tool in ${bin#"$t"/root}" ||
			not_ok "meson install puts $tool in bin/" "$(find "$t/root" -type f | head -5)"
		[ -n "$inst" ] && cmp -s "$inst" "$man" && ok "meson install puts the man page in ${inst#"$t"/root}" ||
			not_ok "meson install puts the man page in share/man/man1/" "$(find "$t/root" -type f | head -5)"
	else
		not_ok "meson install" "$(tail -5 "$t/install.log")"
	fi
}
