# shellcheck shell=bash
# netns.sh: two network namespaces for the live tests, sourced after tap.sh. netns_pair NAME
# names them rocedump-NAME-PID-a and -b ($NA, $NB; PID the script's, so that runs side by side do
# not meet), makes the scratch directory $T and sets the traps that remove both namespaces, $T and
# what the script started (its jobs and the PIDs it adds to spids) on every way out: the end, a
# failure, SIGINT, SIGTERM or SIGHUP, as meson's time limit sends. netns_up creates them with IPv6
# off (no router solicitation mixes in) and loopback up; the caller adds its veth pairs.
T='' spids=()
netns_cleanup() {
	for j in $(jobs -p) "${spids[@]}"; do kill -KILL "$j" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	[ -n "$T" ] && rm -rf "$T"
}
netns_pair() {
	NA=rocedump-$1-$$-a NB=rocedump-$1-$$-b
	trap netns_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	T=$(mktemp -d)
}
ina() { ip netns exec "$NA" "$@"; }
inb() { ip netns exec "$NB" "$@"; }
netns_up() {
	ip netns add "$NA" && ip netns add "$NB" || return 1
	for ns in $NA $NB; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 || return 1
		ip netns exec "$ns" ip link set lo up || return 1
	done
}
