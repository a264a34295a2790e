// SPDX-License-Identifier: GPL-2.0
/*
 * What a READ request returns on a zero-copy device (splice-rsrc): only
 * the sectors the server wrote into it, through a loan (READ_FIXED) or
 * with pwrite() on /dev/ublkcN, counted from the start of the request. A
 * COMMIT that claims more never hands the reader what the pages held
 * before: the unfilled rest comes back to the server as a new request, or
 * the READ fails if nothing was filled.
 *
 * The reader's O_DIRECT buffer is the request's pages, and each case fills
 * it with a marker before the READ: an old byte reaching the reader shows
 * up as the marker.
 *
 * On the 7.3 series, which does not carry the fill record, only the cases
 * that fill the request in full run (SKIP_WITHOUT_FILL_RECORD).
 *
 * Exit 4 (skip) when the kernel lacks the splice-rsrc uAPI, unless
 * UBLK_ZC_VARIANT says it is splice-rsrc: then that fails (exit 1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uzc_ring.h"
#include "kselftest_harness.h"
#include "uzc_cases.h"

#define DEPTH		4
#define SLOTS		4
#define SECTOR		2048		/* where each case reads */
#define FILE_LEN	(64 << 10)	/* the backing file's pattern */
#define MARKER		0xa5

#define SKIP_WITHOUT_FILL_RECORD() UZC_SKIP_WITHOUT_FILL_RECORD("REGISTER_IO_BUF")

FIXTURE(fill) {
	struct uzc_dev d;
	struct io_uring ring;
	struct uzc_io io;
	int file;
	char *pattern;		/* the file's bytes */
	char *dst;		/* the reader's buffer */
};

static void fill_open(struct __test_metadata *_metadata,
		       struct _test_data_fill *self)
{
	memset(self, 0, sizeof(*self));
	self->file = -1;
	ASSERT_EQ(0, uzc_serving_setup(&self->d, DEPTH, &self->ring, 8, 0,
				       SLOTS));
	self->file = uzc_tmpfile();
	ASSERT_GE(self->file, 0);
	self->pattern = uzc_xalloc(FILE_LEN);
	self->dst = uzc_xalloc(FILE_LEN);
	ASSERT_NE(NULL, self->pattern);
	ASSERT_NE(NULL, self->dst);
	uzc_fill(self->pattern, FILE_LEN, 77);
}

static void fill_close(struct __test_metadata *_metadata,
			  struct _test_data_fill *self)
{
	EXPECT_EQ(0, uzc_serving_teardown(&self->d, &self->ring));
	if (self->file >= 0)
		close(self->file);
	free(self->pattern);
	free(self->dst);
}

FIXTURE_SETUP(fill)
{
	fill_open(_metadata, self);
}

FIXTURE_TEARDOWN(fill)
{
	fill_close(_metadata, self);
}

/* the backing file holds the first @len bytes of the pattern */
static int set_file(struct _test_data_fill *self, size_t len)
{
	if (ftruncate(self->file, 0) ||
	    pwrite(self->file, self->pattern, len, 0) != (ssize_t)len)
		return -errno;
	return 0;
}

/* start an O_DIRECT READ of @len bytes at SECTOR into the marked buffer */
static int start_read(struct _test_data_fill *self, size_t len)
{
	struct iovec iov = { self->dst, len };

	memset(self->dst, MARKER, len);
	return uzc_io_start(&self->d, &self->io, UZC_READ, &iov, 1,
			    SECTOR * 512);
}

/* the request of @len bytes at @sector the server must get next */
static int want_read(struct _test_data_fill *self, unsigned long long sector,
		     size_t len)
{
	int tag = uzc_want_req(&self->d, UBLK_IO_OP_READ, len);

	if (tag >= 0 && uzc_iod(&self->d, tag)->start_sector != sector)
		return -EPROTO;
	return tag;
}

/* lend [@off, @off + @len) of @tag in slot 0 */
static int lend(struct _test_data_fill *self, int tag, size_t off, size_t len)
{
	return uzc_splice_from(&self->ring, self->d.cdev_fd,
			       uzc_pos(0, tag, off), len, 0, 0);
}

/* READ_FIXED @len file bytes from @file_off into slot 0 at @addr */
static int fill_fixed(struct _test_data_fill *self, __u64 addr, size_t len,
		      off_t file_off)
{
	return uzc_read_fixed(&self->ring, self->file, 0, addr, len, file_off);
}

/* the reader got @want bytes, each equal to the file's */
static void expect_read(struct __test_metadata *_metadata,
			struct _test_data_fill *self, ssize_t want)
{
	ssize_t got = uzc_io_wait(&self->io);

	EXPECT_EQ(want, got);
	if (got > 0)
		EXPECT_EQ(0, uzc_cmp(self->dst, self->pattern, got));
}

/*
 * READ_FIXED from a short backing file fills half of the request, the
 * server commits all of it: the reader gets the filled half and then, for
 * the other half (requeued, and found empty), an error; never the marker.
 */
TEST_F(fill, short_fill_full_commit)
{
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, set_file(self, 4096));
	ASSERT_EQ(0, start_read(self, 8192));
	tag = want_read(self, SECTOR, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(8192, lend(self, tag, 0, 8192));
	ASSERT_EQ(4096, fill_fixed(self, 0, 8192, 0));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));

	/* the unfilled half comes back; the file has nothing for it */
	tag = want_read(self, SECTOR + 8, 4096);
	ASSERT_GE(tag, 0) TH_LOG("no requeued tail: all of it was completed");
	ASSERT_EQ(4096, lend(self, tag, 0, 4096));
	ASSERT_EQ(0, fill_fixed(self, 0, 4096, 4096));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	expect_read(_metadata, self, -EIO);
}

/* lent and given back unfilled, or never lent: the READ fails */
TEST_F(fill, nothing_filled_fails)
{
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, start_read(self, 4096));
	tag = want_read(self, SECTOR, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, lend(self, tag, 0, 4096));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	expect_read(_metadata, self, -EIO);

	ASSERT_EQ(0, start_read(self, 4096));
	tag = want_read(self, SECTOR, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	expect_read(_metadata, self, -EIO);
}

/* filled back to front by two reads: all of it counts */
TEST_F(fill, filled_out_of_order)
{
	int tag;

	ASSERT_EQ(0, set_file(self, FILE_LEN));
	ASSERT_EQ(0, start_read(self, 16384));
	tag = want_read(self, SECTOR, 16384);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(16384, lend(self, tag, 0, 16384));
	ASSERT_EQ(8192, fill_fixed(self, 8192, 8192, 8192));
	ASSERT_EQ(8192, fill_fixed(self, 0, 8192, 0));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	expect_read(_metadata, self, 16384);
}

/*
 * The same half written twice is still half: what counts is which sectors
 * were written, not how many bytes. The tail is requeued and served.
 */
TEST_F(fill, overlapping_fills_count_once)
{
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, set_file(self, FILE_LEN));
	ASSERT_EQ(0, start_read(self, 8192));
	tag = want_read(self, SECTOR, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(8192, lend(self, tag, 0, 8192));
	ASSERT_EQ(4096, fill_fixed(self, 0, 4096, 0));
	ASSERT_EQ(4096, fill_fixed(self, 0, 4096, 0));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));

	tag = want_read(self, SECTOR + 8, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, lend(self, tag, 0, 4096));
	ASSERT_EQ(4096, fill_fixed(self, 0, 4096, 4096));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	expect_read(_metadata, self, 8192);
}

/*
 * 1000 bytes cover one whole sector: the request completes with 512 bytes
 * and the rest is requeued; pwrite() serves it.
 */
TEST_F(fill, partial_sector_does_not_count)
{
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, set_file(self, 1000));
	ASSERT_EQ(0, start_read(self, 4096));
	tag = want_read(self, SECTOR, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, lend(self, tag, 0, 4096));
	ASSERT_EQ(1000, fill_fixed(self, 0, 4096, 0));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));

	tag = want_read(self, SECTOR + 1, 3584);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(3584, pwrite(self->d.cdev_fd, self->pattern + 512, 3584,
			       uzc_pos(0, tag, 0)));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 3584));
	expect_read(_metadata, self, 4096);
}

/* the same on a device of 4 KiB logical blocks */
FIXTURE(fill4k) {
	struct _test_data_fill f;
};

FIXTURE_SETUP(fill4k)
{
	uzc_logical_bs_shift = 12;
	fill_open(_metadata, &self->f);
}

FIXTURE_TEARDOWN(fill4k)
{
	fill_close(_metadata, &self->f);
}

/*
 * 4608 bytes cover one whole 4 KiB block: the request completes with 4096
 * bytes and the rest, a whole block, is requeued; pwrite() serves it.
 * Counting in 512-byte sectors would complete 4608 and requeue a rest that
 * starts inside a block.
 */
TEST_F(fill4k, partial_block_does_not_count)
{
	struct _test_data_fill *f = &self->f;
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, set_file(f, 4608));
	ASSERT_EQ(0, start_read(f, 8192));
	tag = want_read(f, SECTOR, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(8192, lend(f, tag, 0, 8192));
	ASSERT_EQ(4608, fill_fixed(f, 0, 8192, 0));
	ASSERT_EQ(0, uzc_buf_remove(&f->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&f->d, tag, 8192));

	tag = want_read(f, SECTOR + 8, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, pwrite(f->d.cdev_fd, f->pattern + 4096, 4096,
			       uzc_pos(0, tag, 0)));
	ASSERT_EQ(0, uzc_commit(&f->d, tag, 4096));
	expect_read(_metadata, f, 8192);
}

/*
 * User copy counts too, and a loan of part of the request counts at its
 * offset in the request: pwrite() the first half, fill the second half
 * through a loan of only that half.
 */
TEST_F(fill, pwrite_and_partial_loan)
{
	int tag;

	ASSERT_EQ(0, set_file(self, FILE_LEN));
	ASSERT_EQ(0, start_read(self, 8192));
	tag = want_read(self, SECTOR, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, pwrite(self->d.cdev_fd, self->pattern, 4096,
			       uzc_pos(0, tag, 0)));
	ASSERT_EQ(4096, lend(self, tag, 4096, 4096));
	ASSERT_EQ(4096, fill_fixed(self, 0, 4096, 4096));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	expect_read(_metadata, self, 8192);
}

/* pwrite() of half, COMMIT of all: the tail is requeued */
TEST_F(fill, short_pwrite_full_commit)
{
	int tag;

	SKIP_WITHOUT_FILL_RECORD();

	ASSERT_EQ(0, start_read(self, 8192));
	tag = want_read(self, SECTOR, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, pwrite(self->d.cdev_fd, self->pattern, 4096,
			       uzc_pos(0, tag, 0)));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));

	tag = want_read(self, SECTOR + 8, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(4096, pwrite(self->d.cdev_fd, self->pattern + 4096, 4096,
			       uzc_pos(0, tag, 0)));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	expect_read(_metadata, self, 8192);
}

/*
 * Pieces written beyond the filled start are remembered, up to 16: a
 * request filled back to front in 17 sector pieces completes in full;
 * with 18, the 17th piece (sector 1) is forgotten, so the request
 * completes with sector 0 and the rest comes back, never stale.
 */
static void fill_back_to_front(struct __test_metadata *_metadata,
			       struct _test_data_fill *self, int pieces)
{
	size_t len = pieces * 512;
	int tag, i;

	ASSERT_EQ(0, set_file(self, FILE_LEN));
	ASSERT_EQ(0, start_read(self, len));
	tag = want_read(self, SECTOR, len);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(len, lend(self, tag, 0, len));
	for (i = pieces - 1; i >= 0; i--)
		ASSERT_EQ(512, fill_fixed(self, i * 512, 512, i * 512));
	ASSERT_EQ(0, uzc_buf_remove(&self->ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, len));
	if (pieces > 17) {
		tag = want_read(self, SECTOR + 1, len - 512);
		ASSERT_GE(tag, 0);
		ASSERT_EQ(len - 512, pwrite(self->d.cdev_fd,
					    self->pattern + 512, len - 512,
					    uzc_pos(0, tag, 0)));
		ASSERT_EQ(0, uzc_commit(&self->d, tag, len - 512));
	}
	expect_read(_metadata, self, len);
}

TEST_F(fill, seventeen_pieces_back_to_front)
{
	fill_back_to_front(_metadata, self, 17);
}

TEST_F(fill, eighteen_pieces_back_to_front)
{
	/* the record's limit of 16 pieces: nothing to forget without it */
	SKIP_WITHOUT_FILL_RECORD();
	fill_back_to_front(_metadata, self, 18);
}

int main(int argc, char **argv)
{
	uzc_require(uzc_unsupported(), "splice");
	return test_harness_run(argc, argv);
}
