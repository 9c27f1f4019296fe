# tap.sh: the TAP helpers the shell tests share (sourced, not run). Counts in n and failed; a
# script ends with its plan ("1..$n") and exits non-zero when failed > 0.
#   ok NAME                    a passing check
#   not_ok NAME [DETAIL...]    a failing one; each line of each DETAIL printed as a "# " comment
#                              (an unprefixed line would break the TAP stream)
#   skip NAME REASON           a check that could not run here
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
