/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What upstream's ublk selftest server (kublk, Linux 7.3's
 * tools/testing/selftests/ublk) needs from liburing beyond Debian 12's
 * liburing 2.3.  Forced into every kublk source file (-include) by
 * upstream_suite_make in scripts/lib.sh.
 *
 * 1. io_uring_setup_buf_ring() and io_uring_free_buf_ring(), which came
 *    in liburing 2.4 (it defines IO_URING_VERSION_MAJOR; with it this
 *    part adds nothing).
 *
 * 2. An io_uring_get_sqe() that hands back a cleaned slot.  Newer
 *    liburing (the change came after 2.6, in 2024) clears flags,
 *    ioprio, rw_flags (the same word as uring_cmd_flags), buf_index,
 *    personality, file_index, addr3 and __pad2[0] in io_uring_get_sqe();
 *    older releases clear them only in io_uring_prep_rw(), so a slot filled by hand keeps what the slot's
 *    previous SQE left there.  kublk fills its UBLK_F_BATCH_IO SQEs by
 *    hand (ublk_init_batch_cmd() in batch.c) and sets
 *    IORING_URING_CMD_MULTISHOT and buf_group only on FETCH_IO_CMDS:
 *    once the SQ ring wraps, a PREP/COMMIT_IO_CMDS written into a former
 *    FETCH slot inherits MULTISHOT without IOSQE_BUFFER_SELECT, and
 *    io_uring_cmd_prep() fails it with -EINVAL before ublk sees it
 *    (kublk then asserts in ublk_batch_compl_commit_cmd()).  The macro
 *    below gives kublk the newer behaviour with any liburing; where
 *    liburing already clears the slot it only repeats eight stores.
 */

/*
 * Written for this project from the functions' documented behaviour
 * (io_uring_setup_buf_ring(3)): map a ring of NENTRIES buffers, register
 * it as group BGID with FLAGS (IOU_PBUF_RING_*), and hand it back
 * initialised; on failure NULL with the negative errno in *ERR.
 */
#ifndef UBLK_ZC_LIBURING_COMPAT_H
#define UBLK_ZC_LIBURING_COMPAT_H

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/io_uring.h>
#include <liburing.h>

#ifndef IO_URING_VERSION_MAJOR
static inline size_t compat_buf_ring_size(unsigned int nentries)
{
	return nentries * sizeof(struct io_uring_buf);
}

static inline struct io_uring_buf_ring *
io_uring_setup_buf_ring(struct io_uring *ring, unsigned int nentries,
			int bgid, unsigned int flags, int *err)
{
	struct io_uring_buf_reg reg;
	struct io_uring_buf_ring *br;
	int ret;

	br = mmap(NULL, compat_buf_ring_size(nentries), PROT_READ | PROT_WRITE,
		  MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (br == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)br;
	reg.ring_entries = nentries;
	reg.bgid = bgid;
	/* the kernel's uapi header (included first) has the flags field */
	reg.flags = flags;
	ret = io_uring_register_buf_ring(ring, &reg, 0);
	if (ret) {
		munmap(br, compat_buf_ring_size(nentries));
		*err = ret;
		return NULL;
	}
	io_uring_buf_ring_init(br);
	*err = 0;
	return br;
}

static inline int io_uring_free_buf_ring(struct io_uring *ring,
					 struct io_uring_buf_ring *br,
					 unsigned int nentries, int bgid)
{
	int ret = io_uring_unregister_buf_ring(ring, bgid);

	if (ret)
		return ret;
	munmap(br, compat_buf_ring_size(nentries));
	return 0;
}
#endif /* IO_URING_VERSION_MAJOR */

/*
 * 2. above: liburing.h is complete at this point, so only the includer's
 * calls go through the wrapper.
 */
static inline struct io_uring_sqe *compat_io_uring_get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (sqe) {
		sqe->flags = 0;
		sqe->ioprio = 0;
		sqe->rw_flags = 0;
		sqe->buf_index = 0;
		sqe->personality = 0;
		sqe->file_index = 0;
		sqe->addr3 = 0;
		sqe->__pad2[0] = 0;
	}
	return sqe;
}
#define io_uring_get_sqe compat_io_uring_get_sqe

#endif /* UBLK_ZC_LIBURING_COMPAT_H */
