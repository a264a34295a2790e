// SPDX-License-Identifier: GPL-2.0
/* Refuse duplicate input files; see inputs.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "inputs.h"

struct input_id {
	bool known;		/* a regular file we could read */
	dev_t dev;
	ino_t ino;
	off_t size;
	uint64_t hash;
};

/* FNV-1a over the file: cheap, and a collision is 2^-64 unlikely. */
static int hash_file(const char *path, uint64_t *hash)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t got, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < got; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	close(fd);
	if (got < 0)
		return -EIO;
	*hash = h;
	return 0;
}

static void identify(const char *path, struct input_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	/* only regular files: reading a pipe here would eat its trials */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->known = !hash_file(path, &id->hash);
}

static const char *same(const struct input_id *a, const struct input_id *b)
{
	if (!a->known || !b->known)
		return NULL;
	if (a->dev == b->dev && a->ino == b->ino)
		return "are the same file";
	if (a->size == b->size && a->hash == b->hash)
		return "have the same content";
	return NULL;
}

int inputs_check_distinct(char *const *paths, size_t n, char *err,
			  size_t errlen)
{
	struct input_id *ids = calloc(n ? n : 1, sizeof(*ids));
	size_t i, j, stdin_seen = 0;
	const char *why;
	int ret = 0;

	if (!ids)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		if (!strcmp(paths[i], "-")) {
			if (stdin_seen++)
				ret = set_err(err, errlen, -EINVAL,
					      "standard input (-) is given "
					      "twice");
			continue;
		}
		identify(paths[i], &ids[i]);
		for (j = 0; j < i && !ret; j++) {
			why = same(&ids[j], &ids[i]);
			if (why)
				ret = set_err(err, errlen, -EINVAL,
					      "%s and %s %s: their trials "
					      "would count twice; give each "
					      "file once", paths[j], paths[i],
					      why);
		}
	}
	free(ids);
	return ret;
}
