// SPDX-License-Identifier: GPL-2.0
/*
 * ublk_refs: who may take a reference on a request of a UBLK_F_USER_COPY
 * device, on every kernel of the project (no data path of a series).
 *
 * A pread() or pwrite() on the char device copies a request's data while
 * the server owns it: from the FETCH (or COMMIT_AND_FETCH) completion that
 * hands the request over to the COMMIT.  A request that is dispatched but
 * not handed over yet is no one's to copy: its count is its dispatch's,
 * and a reference taken on it would be lost when the hand-over sets the
 * count, and its put would then end the request in the server's hands.
 *
 * The dispatch is held back where the hand-over runs: in the queue
 * ring's task work, which a DEFER_TASKRUN ring runs only when its task
 * waits on it.  Each step is bounded (UZC_DEADLINE_MS).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>

#include "kselftest_harness.h"
#include "ublk_zc_lib.h"
#include "uzc_cases.h"

#define REFS_FLAGS	UBLK_F_USER_COPY

UZC_TIMEOUT_FIXTURE(refs)

/* The first request of a tag: its count was never set. */
TEST_F_TIMEOUT(refs, held_dispatch_not_copyable, 120)
{
	struct uzc_dev d = { .dev_id = -1 };
	struct uzc_io io;
	void *buf;

	uzc_queue_ring_init = uzc_defer_ring_init;
	/*
	 * 7.x's partition scan READ would take the only tag while nobody
	 * waits on the ring: uzc_dev_add() asks for UBLK_F_NO_AUTO_PART_SCAN
	 */
	ASSERT_EQ(0, uzc_dev_create(&d, REFS_FLAGS, 1, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	uzc_queue_ring_init = NULL;
	buf = uzc_write_start(&d, &io, 4096, 71);
	ASSERT_NE(NULL, buf);
	uzc_serve_held_write(_metadata, &d, &io, buf);
	EXPECT_EQ(0, uzc_dev_destroy(&d));
	free(buf);
}

/* the daemon's callback: commit the test's WRITE, then hold nothing */
static char srv_commit(struct uzc_srv *s, int tag, __u32 len)
{
	return uzc_commit(&s->d, tag, len) ? '3' : 'r';
}

/*
 * A request given up without a hand-over keeps no count: the daemon is
 * stopped in do_exit() before io_uring's cancel (PTRACE_EVENT_EXIT) and a
 * WRITE is dispatched to it; its exit then cancels the FETCH (the series
 * track a cancelable command in flight), which starts the queue's cancel,
 * and runs the task work after it, which refuses to hand the WRITE over
 * and requeues it (UBLK_F_USER_RECOVERY).  The recovered server gets the
 * same request for the same tag, held back on its DEFER_TASKRUN ring: a
 * pread() then must fail as for any request not handed over.  v7 of the
 * 6.12 series left the count of the refused request at one, and the
 * pread() copied it.  Kernels whose exit does not cancel the FETCH abort
 * the WRITE in its task work instead; the case holds there too.
 */
TEST_F_TIMEOUT(refs, refused_handover_not_copyable, 150)
{
	struct uzc_srv s;
	struct uzc_io io;
	void *buf;

	uzc_srv_init(&s);
	ASSERT_EQ(0, uzc_srv_start(&s, REFS_FLAGS | UBLK_F_USER_RECOVERY, 1,
				   srv_commit, 0, 4096));
	ASSERT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	EXPECT_EQ(4096, uzc_io_wait(&s.io));

	ASSERT_EQ(0, uzc_stop_at_exit(s.pid));
	buf = uzc_write_start(&s.d, &io, 4096, 72);
	ASSERT_NE(NULL, buf);
	usleep(UZC_DISPATCH_MS * 1000);
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, s.pid, 0, 0));
	uzc_srv_kill(&s);
	EXPECT_FALSE(uzc_io_done(&io, 0));

	uzc_queue_ring_init = uzc_defer_ring_init;
	ASSERT_EQ(0, uzc_dev_recover(&s.d));
	uzc_queue_ring_init = NULL;
	uzc_serve_held_write(_metadata, &s.d, &io, buf);
	free(buf);
	EXPECT_EQ(0, uzc_dev_destroy(&s.d));
	EXPECT_TRUE(uzc_srv_close(&s));
}

int main(int argc, char **argv)
{
	uzc_require(uzc_prereq(), NULL);
	return test_harness_run(argc, argv);
}
