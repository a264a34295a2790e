// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open counters of this process and of another one (all its
 * threads), and the getrusage / procfs fallback.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "kselftest_harness.h"

static volatile uint64_t sink;

static void burn_ms(int ms)
{
	struct timespec t0, t;
	uint64_t x = 1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
		sink = x;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *burn_thread(void *arg)
{
	burn_ms(*(int *)arg);
	return NULL;
}

/* CPU in two threads (one created after the counters opened), faults, sleeps. */
static void work(int pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ms = 60, i;
	pthread_t t;

	pthread_create(&t, NULL, burn_thread, &ms);
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
	for (i = 0; i < 5; i++)
		usleep(2000);
	burn_ms(30);
	pthread_join(t, NULL);
	munmap(p, pages * psz);
}

static void check_values(struct __test_metadata *_metadata,
			 const struct counters_values *v, int pages)
{
	ASSERT_TRUE(v->present[CNT_TASK_CLOCK]);
	ASSERT_TRUE(v->present[CNT_CONTEXT_SWITCHES]);
	ASSERT_TRUE(v->present[CNT_PAGE_FAULTS]);
	/* 90 ms of CPU over two threads; rusage ticks are coarse */
	EXPECT_GT(v->value[CNT_TASK_CLOCK], 50000000u);
	EXPECT_LT(v->value[CNT_TASK_CLOCK], 5000000000u);
	EXPECT_GE(v->value[CNT_CONTEXT_SWITCHES], 5u);
	EXPECT_GE(v->value[CNT_PAGE_FAULTS], (uint64_t)pages);
}

TEST(self_perf)
{
	struct counters_values v, again;
	struct counters *c = counters_open_self();

	ASSERT_NE(NULL, c);
	if (strcmp(counters_source(c), "perf_event_open"))
		SKIP(counters_close(c); return, "no perf_event_open: %s",
		     counters_note(c));
	ASSERT_EQ(0, counters_start(c));
	work(200);
	ASSERT_EQ(0, counters_stop(c));
	ASSERT_EQ(0, counters_read(c, &v));
	check_values(_metadata, &v, 200);
	EXPECT_TRUE(v.present[CNT_CPU_MIGRATIONS]);
	/* stopped: frozen */
	burn_ms(20);
	ASSERT_EQ(0, counters_read(c, &again));
	EXPECT_EQ(v.value[CNT_TASK_CLOCK], again.value[CNT_TASK_CLOCK]);
	/* a new start counts from zero again */
	ASSERT_EQ(0, counters_start(c));
	ASSERT_EQ(0, counters_stop(c));
	ASSERT_EQ(0, counters_read(c, &again));
	EXPECT_LT(again.value[CNT_TASK_CLOCK], 20000000u);
	counters_close(c);
}

TEST(hardware_present_or_said_absent)
{
	struct counters_values v;
	struct counters *c = counters_open_self();

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, counters_start(c));
	burn_ms(10);
	ASSERT_EQ(0, counters_stop(c));
	ASSERT_EQ(0, counters_read(c, &v));
	if (v.present[CNT_INSTRUCTIONS]) {
		EXPECT_GT(v.value[CNT_INSTRUCTIONS], 1000000u);
	} else {
		EXPECT_EQ(0u, v.value[CNT_INSTRUCTIONS]);
		EXPECT_NE(NULL, strstr(counters_note(c), "instructions"));
	}
	TH_LOG("source %s; note: %s", counters_source(c), counters_note(c));
	counters_close(c);
}

TEST(self_fallback)
{
	struct counters_values v;
	struct counters *c = counters_open(getpid(), COUNTERS_NO_PERF);

	ASSERT_NE(NULL, c);
	EXPECT_STREQ("getrusage", counters_source(c));
	EXPECT_NE(NULL, strstr(counters_note(c), "getrusage"));
	ASSERT_EQ(0, counters_start(c));
	work(200);
	ASSERT_EQ(0, counters_stop(c));
	ASSERT_EQ(0, counters_read(c, &v));
	check_values(_metadata, &v, 200);
	EXPECT_FALSE(v.present[CNT_CPU_MIGRATIONS]);
	EXPECT_FALSE(v.present[CNT_INSTRUCTIONS]);
	counters_close(c);
}

/*
 * A child whose second thread, once told to go, does 100 ms of CPU and
 * five sleeps, then says done.  CPU time, not wall time: the machine may
 * be busy.
 */
struct worker {
	pid_t pid;
	int go_fd, done_fd;
};

static int child_go_fd, child_done_fd;

static void *worker_thread(void *arg)
{
	char x;
	int i;

	(void)arg;
	if (read(child_go_fd, &x, 1) != 1)
		_exit(1);
	burn_ms(100);
	for (i = 0; i < 5; i++)
		usleep(1000);
	if (write(child_done_fd, "d", 1) != 1)
		_exit(1);
	/* stay: the procfs fallback loses the counts of exited threads */
	for (;;)
		pause();
	return NULL;
}

static int spawn_worker(struct worker *w)
{
	int go[2], done[2];
	pthread_t t;

	if (pipe(go) || pipe(done))
		return -1;
	w->pid = fork();
	if (w->pid) {
		close(go[0]);
		close(done[1]);
		w->go_fd = go[1];
		w->done_fd = done[0];
		return w->pid < 0 ? -1 : 0;
	}
	child_go_fd = go[0];
	child_done_fd = done[1];
	pthread_create(&t, NULL, worker_thread, NULL);
	if (write(done[1], "r", 1) != 1)	/* both threads exist */
		_exit(1);
	for (;;)
		pause();
}

static void other_pid(struct __test_metadata *_metadata, unsigned int flags,
		      const char *source)
{
	struct counters_values v;
	struct counters *c;
	struct worker w;
	char x;

	ASSERT_EQ(0, spawn_worker(&w));
	ASSERT_EQ(1, read(w.done_fd, &x, 1));
	c = counters_open(w.pid, flags);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ(source, counters_source(c));
	ASSERT_EQ(0, counters_start(c));
	ASSERT_EQ(1, write(w.go_fd, "g", 1));
	ASSERT_EQ(1, read(w.done_fd, &x, 1));
	ASSERT_EQ(0, counters_stop(c));
	ASSERT_EQ(0, counters_read(c, &v));
	kill(w.pid, SIGKILL);
	waitpid(w.pid, NULL, 0);
	close(w.go_fd);
	close(w.done_fd);
	/* the thread that existed before the open did 100 ms of CPU */
	EXPECT_GT(v.value[CNT_TASK_CLOCK], 80000000u);
	EXPECT_LT(v.value[CNT_TASK_CLOCK], 2000000000u);
	EXPECT_GE(v.value[CNT_CONTEXT_SWITCHES], 5u);
	counters_close(c);
}

TEST(other_pid_all_threads_perf)
{
	other_pid(_metadata, 0, "perf_event_open");
}

TEST(other_pid_procfs_fallback)
{
	other_pid(_metadata, COUNTERS_NO_PERF, "procfs");
}

TEST(missing_pid)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	errno = 0;
	EXPECT_EQ(NULL, counters_open_pid(pid));
	EXPECT_EQ(ESRCH, errno);
}

TEST(names)
{
	EXPECT_STREQ("task-clock", counters_name(CNT_TASK_CLOCK));
	EXPECT_STREQ("context-switches", counters_name(CNT_CONTEXT_SWITCHES));
	EXPECT_STREQ("instructions", counters_name(CNT_INSTRUCTIONS));
}

/* Under icount a task's task-clock is its own only on one vCPU. */
TEST(cpu_time_is_own_only_on_one_vcpu_under_icount)
{
	EXPECT_TRUE(counters_cpu_time_is_own("icount", 1));
	EXPECT_FALSE(counters_cpu_time_is_own("icount", 2));
	EXPECT_FALSE(counters_cpu_time_is_own("icount", 8));
	EXPECT_TRUE(counters_cpu_time_is_own("wall", 1));
	EXPECT_TRUE(counters_cpu_time_is_own("wall", 2));
}

TEST_HARNESS_MAIN
