/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of the commands share (tests/helpers.c): a
 * command run with its output captured, a file's text, a temporary tree
 * removed, numbers compared NaN and all.
 */
#ifndef ABTOOL_TEST_HELPERS_H
#define ABTOOL_TEST_HELPERS_H

#include <stdbool.h>

/*
 * @fn (cmd_compare, cmd_replicate: subcommand @name) on @args (NULL
 * ended); its stdout as a malloc'd string (its stderr with @want_stderr),
 * the other to /dev/null, so that the TAP stream stays clean; its exit
 * status in *status.  NULL when the output could not be read.
 */
char *capture_cmd(int (*fn)(int, char **), const char *name,
		  const char *const *args, int *status, bool want_stderr);
/* The whole text of @path, malloc'd; NULL when it cannot be read. */
char *read_file(const char *path);
/* rm -r @dir: the tests leave nothing behind in /tmp. */
void remove_tree(const char *dir);
/* Equal, NaN included: the same computation on the same data. */
bool same(double a, double b);

#endif
