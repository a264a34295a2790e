// SPDX-License-Identifier: GPL-2.0
/*
 * perf stat around the measured window of a trial.  perf starts with its
 * events disabled (-D -1) and is switched on and off through its control
 * pipe (--control fd:CTL,ACK): each command is acknowledged, so the
 * counts cover the window exactly, however long perf takes to start.
 * perf writes to a private temporary file (-o) so that its CSV can be
 * appended to the user's file in one piece, headed by its trial.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_codes.h"
#include "perf_stat.h"

#define ACK_TIMEOUT_MS	60000	/* perf is slow to start under TCG */

struct perf_stat {
	pid_t perf;
	int ctl, ack;		/* our ends of perf's control pipes */
	char tmp[64];
};

/* Send a control command and wait for perf's "ack". */
static int perf_command(struct perf_stat *ps, const char *cmd)
{
	struct pollfd p = { .fd = ps->ack, .events = POLLIN };
	char buf[16];
	ssize_t n;

	if (write(ps->ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		return -1;
	if (poll(&p, 1, ACK_TIMEOUT_MS) != 1)
		return -1;
	n = read(ps->ack, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strncmp(buf, "ack", 3) ? -1 : 0;
}

static void perf_child(struct perf_stat *ps, int ctl_r, int ack_w, pid_t pid,
		       const char *events)
{
	char pidstr[16], control[48];
	int fd;
	const char *argv[] = { "perf", "stat", "-x,", "-D", "-1",
			       "--control", control, "-o", ps->tmp,
			       "-p", pidstr, events ? "-e" : NULL, events, NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(control, sizeof(control), "fd:%d,%d", ctl_r, ack_w);
	/* quiet its "Events enabled" chatter; failures show as no ack */
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	execvp("perf", (char **)argv);
	_exit(AB_EXIT_NOT_FOUND);
}

static void perf_stat_free(struct perf_stat *ps)
{
	if (ps->perf > 0) {
		kill(ps->perf, SIGKILL);
		waitpid(ps->perf, NULL, 0);
	}
	close(ps->ctl);
	close(ps->ack);
	unlink(ps->tmp);
	free(ps);
}

struct perf_stat *perf_stat_start(pid_t pid, const char *events,
				  char *err, size_t errlen)
{
	struct perf_stat *ps = calloc(1, sizeof(*ps));
	int ctl[2], ack[2], fd;

	if (!ps) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	strcpy(ps->tmp, "/tmp/abtool-perf-stat.XXXXXX");
	fd = mkstemp(ps->tmp);
	if (fd < 0 || pipe(ctl)) {
		snprintf(err, errlen, "%s", strerror(errno));
		free(ps);
		return NULL;
	}
	close(fd);
	if (pipe(ack)) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(ctl[0]);
		close(ctl[1]);
		free(ps);
		return NULL;
	}
	fflush(NULL);
	ps->perf = fork();
	if (ps->perf == 0) {
		close(ctl[1]);
		close(ack[0]);
		perf_child(ps, ctl[0], ack[1], pid, events);
	}
	close(ctl[0]);
	close(ack[1]);
	ps->ctl = ctl[1];
	ps->ack = ack[0];
	if (ps->perf < 0 || perf_command(ps, "enable\n")) {
		snprintf(err, errlen, "perf stat did not start (is linux-perf "
			 "installed, events '%s' valid?)", events ? events : "default");
		perf_stat_free(ps);
		return NULL;
	}
	return ps;
}

static int append_file(const char *from, FILE *to)
{
	char buf[4096];
	FILE *f = fopen(from, "r");
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, to);
	fclose(f);
	return ferror(to) ? -1 : 0;
}

int perf_stat_finish(struct perf_stat *ps, const char *out, const char *header,
		     char *err, size_t errlen)
{
	FILE *f = NULL;
	int status = 0, ret = -1;

	if (perf_command(ps, "disable\n")) {
		snprintf(err, errlen, "perf stat did not acknowledge 'disable'");
		goto out;
	}
	/*
	 * SIGINT: perf prints its totals, then re-raises the signal to die
	 * of it, as a well-behaved tool does
	 */
	kill(ps->perf, SIGINT);
	waitpid(ps->perf, &status, 0);
	ps->perf = 0;
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(err, errlen, "perf stat failed (status 0x%x)", status);
		goto out;
	}
	f = fopen(out, "a");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", out, strerror(errno));
		goto out;
	}
	fprintf(f, "# %s\n", header);
	ret = append_file(ps->tmp, f);
	if (fclose(f))
		ret = -1;
	if (ret)
		snprintf(err, errlen, "cannot append perf's output to %s", out);
out:
	perf_stat_free(ps);
	return ret;
}
