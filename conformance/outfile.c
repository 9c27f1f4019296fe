/* outfile.c: see outfile.h. The temporary is ".NAME.XXXXXX" in the target's directory, so that
 * the final rename() stays within one file system and replaces the target (or a symlink planted
 * at its name) in one step; a reader never sees half a report. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(struct outfile *o, const char *path, char err[CONF_ERRLEN])
{
	struct stat st;
	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, CONF_ERRLEN, "%s is a directory", path);
		return -1;
	}
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(path) + 16;
	if (!(o->tmp = malloc(n))) {
		snprintf(err, CONF_ERRLEN, "out of memory");
		return -1;
	}
	snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, CONF_ERRLEN, "%s: cannot write in its directory: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(o->f = fdopen(fd, "w"))) {
		snprintf(err, CONF_ERRLEN, "%s: %s", o->tmp, strerror(errno));
		close(fd);
		outfile_discard(o);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o, char err[CONF_ERRLEN])
{
	if (o->f == stdout) {
		o->f = NULL;
		return fflush(stdout) == 0 ? 0 : -1;
	}
	if (o->f) {
		int bad = ferror(o->f) | (fclose(o->f) != 0);
		o->f = NULL;
		if (bad) {
			snprintf(err, CONF_ERRLEN, "%s: write failed", o->path);
			outfile_discard(o);
			return -1;
		}
	}
	if (o->tmp && rename(o->tmp, o->path) < 0) {
		snprintf(err, CONF_ERRLEN, "%s: %s", o->path, strerror(errno));
		outfile_discard(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void outfile_discard(struct outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
}
