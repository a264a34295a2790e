/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What upstream's ublk selftest server (kublk, Linux 7.3's
 * tools/testing/selftests/ublk) needs from liburing beyond Debian 12's
 * liburing 2.3: io_uring_setup_buf_ring() and io_uring_free_buf_ring(),
 * which came in liburing 2.4.  Forced into every kublk source file
 * (-include) by scripts/upstream-selftests; with liburing 2.4 or later
 * (it defines IO_URING_VERSION_MAJOR) it adds nothing.
 *
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

#endif /* UBLK_ZC_LIBURING_COMPAT_H */
