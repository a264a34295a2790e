// SPDX-License-Identifier: GPL-2.0
/*
 * scattered_buf: no page of the buffer is followed by its physical
 * successor, the pages are zeroed and writable, and the layout survives
 * use.  Frame numbers need CAP_SYS_ADMIN: without it the cases that
 * check the layout skip, as the tool then only warns.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "scattered_buf.h"

#define NPAGES 512

static size_t pg(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

TEST(no_page_is_followed_by_its_physical_successor)
{
	size_t len = NPAGES * pg(), i;
	unsigned char *buf;
	void *p;
	int ret;

	ret = scattered_buf_alloc(len, &p);
	ASSERT_LE(0, ret);
	buf = p;
	if (ret == 1) {
		scattered_buf_free(p, len);
		SKIP(return, "frame numbers hidden (not root)");
	}
	EXPECT_EQ(0, scattered_buf_neighbours(buf, NPAGES));
	for (i = 0; i < len; i++)
		if (buf[i])
			break;
	EXPECT_EQ(len, i);
	memset(buf, 0xa5, len);
	EXPECT_EQ(0xa5, buf[len - 1]);
	/* writing did not move a page */
	EXPECT_EQ(0, scattered_buf_neighbours(buf, NPAGES));
	scattered_buf_free(p, len);
}

/* what the allocator does on its own: the count the test above must beat */
TEST(neighbours_counts_physical_successors)
{
	size_t len = NPAGES * pg();
	long n;
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	n = scattered_buf_neighbours(p, NPAGES);
	if (n == -EPERM) {
		munmap(p, len);
		SKIP(return, "frame numbers hidden (not root)");
	}
	EXPECT_LE(0, n);
	EXPECT_GT(NPAGES, n);
	TH_LOG("a plain %d-page mapping: %ld pages follow their physical predecessor",
	       NPAGES, n);
	munmap(p, len);
}

TEST(odd_length_rounds_up_to_pages)
{
	void *p;
	int ret;

	ret = scattered_buf_alloc(pg() + 1, &p);
	ASSERT_LE(0, ret);
	memset(p, 1, 2 * pg());
	if (ret == 0)
		EXPECT_EQ(0, scattered_buf_neighbours(p, 2));
	scattered_buf_free(p, pg() + 1);
}

TEST(absent_page_is_reported)
{
	void *p = mmap(NULL, pg(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	/* never touched: nothing behind it */
	EXPECT_EQ(-EFAULT, scattered_buf_neighbours(p, 1));
	munmap(p, pg());
}

TEST(zero_length_is_refused)
{
	void *p = NULL;

	EXPECT_EQ(-EINVAL, scattered_buf_alloc(0, &p));
	EXPECT_EQ(NULL, p);
}

/*
 * The workload's jobs allocate at once: a page moved out of one thread's
 * source mapping leaves a hole another thread's mmap() can take, which
 * must survive the first thread's cleanup.
 */
static void *alloc_fill_check(void *arg)
{
	unsigned char id = (unsigned char)(uintptr_t)arg;
	size_t len = 16 * pg(), i;
	int round;

	for (round = 0; round < 500; round++) {
		unsigned char *b;
		void *p;

		if (scattered_buf_alloc(len, &p) < 0)
			return (void *)1;
		b = p;
		memset(b, id, len);
		for (i = 0; i < len; i++)
			if (b[i] != id)
				return (void *)1;
		scattered_buf_free(p, len);
	}
	return NULL;
}

TEST(threads_allocate_at_once)
{
	pthread_t t[4];
	void *bad;
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, alloc_fill_check,
					    (void *)(uintptr_t)(i + 1)));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &bad));
		EXPECT_EQ(NULL, bad);
	}
}

TEST_HARNESS_MAIN
