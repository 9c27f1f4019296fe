/* privs.c: -Z USER (see privs.h). The order is the one that works: supplementary groups and the
 * gid while still root, the uid last; then a check that root cannot be had back. glibc applies
 * each change to every thread of the process. */
#include "live/privs.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int privs_drop(const char *user, char *errbuf, size_t errlen)
{
	struct passwd pwd, *pw = NULL;
	char buf[4096];  /* the entry's strings: names, home, shell */
	int err = getpwnam_r(user, &pwd, buf, sizeof(buf), &pw);
	if (!pw) {
		snprintf(errbuf, errlen, "-Z %s: no such user%s%s", user, err ? ": " : "", err ? strerror(err) : "");
		return -1;
	}
	if (geteuid() != 0) {
		snprintf(errbuf, errlen,
			 "-Z %s: cannot switch users: rocedump is not running as root (uid %u); with only "
			 "CAP_NET_RAW (setcap cap_net_raw+ep) run it as the user you want instead of -Z",
			 user, (unsigned)geteuid());
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		snprintf(errbuf, errlen, "-Z %s: switching to uid %u gid %u: %s", user, (unsigned)pw->pw_uid,
			 (unsigned)pw->pw_gid, strerror(errno));
		return -1;
	}
	if (pw->pw_uid != 0 && (setuid(0) == 0 || geteuid() == 0)) {
		snprintf(errbuf, errlen, "-Z %s: root privileges could be regained after the switch", user);
		return -1;
	}
	return 0;
}
