/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_SCATTERED_BUF_H
#define UZC_SRV_SCATTERED_BUF_H

#include <stddef.h>

/*
 * I/O buffers with one fixed physical layout: no page is followed by its
 * physical successor, so every page of an O_DIRECT buffer is a segment of
 * its own, on every run.  Left to the page allocator, how many neighbours
 * a buffer's pages happen to have changes from one process to the next,
 * and under QEMU's instruction clock that alone moves large-block IOPS by
 * up to 15% (docs/statistics.md, "Bimodal cells").
 *
 * scattered_buf_alloc() maps LEN bytes (rounded up to pages), zeroed and
 * populated, into *BUF: 0 when the layout is the fixed one, 1 when it
 * could not be arranged because /proc/self/pagemap hides frame numbers
 * (no CAP_SYS_ADMIN: the buffer is usable, its layout is chance), or a
 * negative errno with nothing mapped.  Free with scattered_buf_free().
 */
int scattered_buf_alloc(size_t len, void **buf);
void scattered_buf_free(void *buf, size_t len);

/*
 * How many of the NPAGES pages at BUF are followed by their physical
 * successor (0 for a scattered buffer), or a negative errno; 1 page in,
 * -EPERM when frame numbers are hidden.
 */
long scattered_buf_neighbours(const void *buf, size_t npages);

#endif
