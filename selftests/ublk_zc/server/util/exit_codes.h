/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abtool's exit statuses, one name each (liburing's T_EXIT_* style): the
 * callers act on them (scripts/ab, the selftests, abtool run reading its
 * server child), so each is defined once and found by name.  The values
 * are part of the interface (abtool(1), docs/abtool.md): never renumber.
 */
#ifndef UZC_SRV_EXIT_CODES_H
#define UZC_SRV_EXIT_CODES_H

enum ab_exit {
	AB_EXIT_OK = 0,
	AB_EXIT_FAIL = 1,		/* a run-time error */
	AB_EXIT_USAGE = 2,		/* bad arguments */
	AB_EXIT_VERIFY = 3,		/* abtool load: verify mismatches */
	/*
	 * The running kernel cannot run the data path.  kselftest's
	 * KSFT_SKIP, so the selftests pass abtool serve's status on as a
	 * skip; abtool run skips the path when its server child exits so.
	 */
	AB_EXIT_SKIP = 4,
	/* abtool replicate: a verdict of one run is the opposite in the other */
	AB_EXIT_REVERSED = 5,
	/* A forked child could not get ready to exec (a shell's 126). */
	AB_EXIT_CANNOT_EXEC = 126,
	/* A forked child's exec failed (a shell's "command not found"). */
	AB_EXIT_NOT_FOUND = 127,
	/* abtool run stopped by SIGINT/SIGTERM: 128 + SIGINT, as in a shell */
	AB_EXIT_INTERRUPTED = 130,
};

#endif
