// SPDX-License-Identifier: GPL-2.0
/*
 * A provided-buffer ring (IORING_REGISTER_PBUF_RING) with Debian 12's
 * liburing 2.3, which has io_uring_register_buf_ring() but not 2.4's
 * io_uring_setup_buf_ring(): the ring's memory is ours, mapped here.
 * See ublk.h.
 */
#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>

#include "ublk.h"

/*
 * struct io_uring_buf_reg as the kernel has it since 6.12: liburing
 * 2.3's copy of io_uring.h calls the flags field "pad", later ones
 * "flags", so the argument is filled through this copy of the layout.
 */
struct buf_reg {
	__u64	ring_addr;
	__u32	ring_entries;
	__u16	bgid;
	__u16	flags;
	__u64	resv[3];
};
_Static_assert(sizeof(struct buf_reg) == sizeof(struct io_uring_buf_reg),
	       "struct io_uring_buf_reg changed its size");

static size_t ring_bytes(unsigned int nentries)
{
	return (size_t)nentries * sizeof(struct io_uring_buf);
}

struct io_uring_buf_ring *uring_buf_ring_setup(struct io_uring *ring,
					       unsigned int nentries,
					       unsigned int bgid,
					       unsigned int flags, int *err)
{
	struct buf_reg reg = { .ring_entries = nentries, .bgid = bgid,
			       .flags = flags };
	struct io_uring_buf_ring *br;
	int ret;

	/* the kernel wants the ring page aligned: mmap's are */
	br = mmap(NULL, ring_bytes(nentries), PROT_READ | PROT_WRITE,
		  MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (br == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	reg.ring_addr = (uintptr_t)br;
	ret = io_uring_register_buf_ring(ring, (struct io_uring_buf_reg *)&reg,
					 0);
	if (ret < 0) {
		munmap(br, ring_bytes(nentries));
		*err = ret;
		return NULL;
	}
	io_uring_buf_ring_init(br);
	*err = 0;
	return br;
}

int uring_buf_ring_free(struct io_uring *ring, struct io_uring_buf_ring *br,
			unsigned int nentries, unsigned int bgid)
{
	int ret = io_uring_unregister_buf_ring(ring, bgid);

	munmap(br, ring_bytes(nentries));
	return ret;
}
