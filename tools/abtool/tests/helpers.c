// SPDX-License-Identifier: GPL-2.0
/* What the command tests share (helpers.h). */
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"

static char *read_all(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);

	if (buf && len > 0 && pread(fd, buf, (size_t)len, 0) != len) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *capture_cmd(int (*fn)(int, char **), const char *name,
		  const char *const *args, int *status, bool want_stderr)
{
	char *argv[32], path[] = "/tmp/abtool-test-out-XXXXXX", *text;
	int argc = 0, out, err, tmp, null;

	argv[argc++] = (char *)name;
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	out = dup(STDOUT_FILENO);
	err = dup(STDERR_FILENO);
	tmp = mkstemp(path);
	null = open("/dev/null", O_WRONLY);
	dup2(want_stderr ? null : tmp, STDOUT_FILENO);
	dup2(want_stderr ? tmp : null, STDERR_FILENO);
	*status = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	text = read_all(tmp);
	close(out);
	close(err);
	close(tmp);
	close(null);
	unlink(path);
	return text;
}

char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_all(fd);
	close(fd);
	return text;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}
