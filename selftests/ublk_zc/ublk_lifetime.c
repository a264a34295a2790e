// SPDX-License-Identifier: GPL-2.0
/*
 * ublk_lifetime: how a device outlives its daemon with the stock uAPI, on
 * every kernel of the project (no data path of a series is used).
 *
 * The daemon holds an uncommitted WRITE and nothing else is in flight; a
 * process that is not the daemon holds the daemon's queue ring (the one
 * with the FETCH commands), and the daemon is SIGKILLed.  A server's
 * death must end the request (-EIO without recovery) and let the device
 * be stopped and deleted, whoever else holds its ring.  The io_uring exit
 * of the daemon cancels only what it tracks in flight; with nothing
 * tracked it returns at once and never cancels the FETCHes, which then
 * live as long as the ring, i.e. as long as the other process keeps it.
 *
 * Each step is bounded (UZC_DEADLINE_MS): a kernel with the limit fails
 * the case, then the case closes its copy of the ring, checks that this
 * is what ended the request, and deletes the device, so that the run
 * goes on.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "uzc_cases.h"
#include "ublk_zc_lib.h"

/* UBLK_F_USER_COPY: the daemon needs no buffers to hold a request */
#define HOLD_FLAGS	UBLK_F_USER_COPY

/* the daemon's callback (uzc_srv_start): hold the WRITE, report the ring */
static char srv_hold(struct uzc_srv *s, int tag, __u32 len)
{
	(void)tag;
	(void)len;
	s->out = s->d.q.ring_fd;
	return 'r';
}

/* the ring taken by the test (pidfd_getfd), or by a fork of the daemon */
enum { TAKE_BY_PIDFD, TAKE_BY_FORK };

static char srv_hold_and_fork(struct uzc_srv *s, int tag, __u32 len)
{
	srv_hold(s, tag, len);
	return uzc_srv_fork_holder(s, true) ? '3' : 'r';
}

FIXTURE(held) {
	struct uzc_srv s;
	int rfd;	/* the test's copy of the ring, TAKE_BY_PIDFD */
};

FIXTURE_VARIANT(held) {
	int take;
};

FIXTURE_VARIANT_ADD(held, pidfd_getfd) { .take = TAKE_BY_PIDFD };
FIXTURE_VARIANT_ADD(held, fork) { .take = TAKE_BY_FORK };

FIXTURE_SETUP(held)
{
	uzc_srv_init(&self->s);
	self->rfd = -1;
}

FIXTURE_TEARDOWN(held)
{
	if (self->rfd >= 0)
		close(self->rfd);
	EXPECT_TRUE(uzc_srv_close(&self->s));
}

/*
 * Stock 6.12 and 7.3 have the limit (docs/upstream-findings.md).  There
 * the case reports XFAIL, once the rest of it held: the request ended
 * with -EIO as soon as the ring's last owner let it go, and the device
 * was deleted.  A variant named in UBLK_ZC_VARIANT that fixes it goes in
 * this list, and the case then fails on it if the request does not end
 * while held.  The 6.12 series listed carry the fix ("io_uring/uring_cmd:
 * let the submitter's exit cancel a cancelable command": a cancelable
 * command is tracked in flight, so its task's exit cancels it).
 */
static const char *const ends_while_held[] = {
	"splice-rsrc",
	"fused",
	"bpf",
	"regbuf",
	NULL
};

static bool fixed_here(void)
{
	const char *v = uzc_variant();
	unsigned int i;

	for (i = 0; v && ends_while_held[i]; i++)
		if (!strcmp(v, ends_while_held[i]))
			return true;
	return false;
}

TEST_F_TIMEOUT(held, daemon_killed_with_ring_held, 90)
{
	struct uzc_srv *s = &self->s;
	bool ended, deleted;
	pid_t del;

	ASSERT_EQ(0, uzc_srv_start(s, HOLD_FLAGS, 2,
				   variant->take == TAKE_BY_FORK ?
				   srv_hold_and_fork : srv_hold, 0, 4096));
	if (variant->take == TAKE_BY_PIDFD) {
		self->rfd = uzc_take_fd(s->pid, s->out);
		ASSERT_LE(0, self->rfd) TH_LOG("pidfd_getfd: %s",
					       strerror(-self->rfd));
	} else {
		ASSERT_GT(s->holder, 0);
	}
	EXPECT_FALSE(uzc_io_done(&s->io, 200));
	uzc_srv_kill(s);

	ended = uzc_io_done(&s->io, UZC_DEADLINE_MS);
	if (!ended) {
		uzc_srv_release_holders(&self->s, &self->rfd);
		/* then the ring's exit is what ends it */
		ASSERT_TRUE(uzc_io_done(&s->io, UZC_DEADLINE_MS));
	}
	EXPECT_EQ(-EIO, uzc_io_wait(&s->io));

	/* stop and delete, with the ring still held if it still is */
	uzc_queue_close(&s->d);
	del = uzc_delete_start(&s->d);
	ASSERT_GT(del, 0);
	deleted = uzc_delete_wait(&s->d, del, UZC_DEADLINE_MS);
	uzc_srv_release_holders(&self->s, &self->rfd);
	EXPECT_TRUE(deleted);

	if (ended)
		return;
	if (fixed_here() || _metadata->exit_code != KSFT_PASS) {
		EXPECT_TRUE(ended) TH_LOG("the WRITE stayed pending %d ms after "
					  "its daemon died, its FETCH ring held "
					  "elsewhere", UZC_DEADLINE_MS);
		return;
	}
	uzc_known_limit(_metadata, "known limit: the request ends only when "
			"the dead daemon's FETCH ring is closed by its other "
			"holder");
}

int main(int argc, char **argv)
{
	uzc_require(uzc_prereq(), NULL);
	return test_harness_run(argc, argv);
}
