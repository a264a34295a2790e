// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers whose pages are in descending physical order: a page's
 * physical successor can then never be its virtual successor, which is
 * what the block layer merges into one segment (biovec_phys_mergeable).
 * The pages are faulted in, their frame numbers read from
 * /proc/self/pagemap, and each page is moved with mremap() to its place
 * in a second mapping: the physical pages stay, only the order changes.
 * Every moved page becomes its own VMA; O_DIRECT pins through
 * get_user_pages_fast, which walks page tables, not VMAs, so the per-I/O
 * cost does not depend on them.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scattered_buf.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

struct page_pfn {
	uint64_t pfn;
	size_t index;
};

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Frame numbers of NPAGES pages at BUF: -EPERM when the kernel hides them */
static int read_pfns(const void *buf, size_t npages, uint64_t *pfn)
{
	size_t len = npages * sizeof(*pfn), i;
	off_t off = (off_t)((uintptr_t)buf / page_size() * sizeof(*pfn));
	bool any = false;
	ssize_t n;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, pfn, len, off);
	close(fd);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	for (i = 0; i < npages; i++) {
		if (!(pfn[i] & PM_PRESENT))
			return -EFAULT;
		pfn[i] &= PM_PFN_MASK;
		any |= pfn[i] != 0;
	}
	return any ? 0 : -EPERM;
}

long scattered_buf_neighbours(const void *buf, size_t npages)
{
	uint64_t *pfn = calloc(npages ? npages : 1, sizeof(*pfn));
	long n = 0;
	size_t i;
	int ret;

	if (!pfn)
		return -ENOMEM;
	ret = read_pfns(buf, npages, pfn);
	for (i = 1; !ret && i < npages; i++)
		n += pfn[i] == pfn[i - 1] + 1;
	free(pfn);
	return ret ? ret : n;
}

static int by_pfn_descending(const void *a, const void *b)
{
	const struct page_pfn *x = a, *y = b;

	return x->pfn < y->pfn ? 1 : x->pfn > y->pfn ? -1 : 0;
}

/*
 * Move SRC's pages (frame numbers PFN) into DST by descending frame
 * number.  SRC is gone afterwards, whatever happens: each move leaves a
 * hole in SRC that another thread's mmap() may take at once, so SRC is
 * never unmapped as a whole once a page has moved; on failure the pages
 * not moved are unmapped one by one.
 */
static int move_pages(char *src, char *dst, const uint64_t *pfn,
		      size_t npages)
{
	size_t pg = page_size(), i, moved = 0;
	struct page_pfn *order;
	int ret = 0;

	order = calloc(npages, sizeof(*order));
	if (!order) {
		munmap(src, npages * pg);
		return -ENOMEM;
	}
	for (i = 0; i < npages; i++)
		order[i] = (struct page_pfn){ pfn[i], i };
	qsort(order, npages, sizeof(*order), by_pfn_descending);
	for (; moved < npages; moved++)
		if (mremap(src + order[moved].index * pg, pg, pg,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   dst + moved * pg) == MAP_FAILED) {
			ret = -errno;
			break;
		}
	for (i = moved; i < npages; i++)
		munmap(src + order[i].index * pg, pg);
	free(order);
	return ret;
}

static void *map_populated(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
}

int scattered_buf_alloc(size_t len, void **buf)
{
	size_t pg = page_size(), npages = (len + pg - 1) / pg;
	uint64_t *pfn;
	char *src, *dst;
	int ret;

	if (!npages)
		return -EINVAL;
	pfn = calloc(npages, sizeof(*pfn));
	if (!pfn)
		return -ENOMEM;
	src = map_populated(npages * pg);
	if (src == MAP_FAILED) {
		free(pfn);
		return -errno;
	}
	ret = read_pfns(src, npages, pfn);
	if (ret == -EPERM) {
		/* usable, layout left to chance */
		free(pfn);
		*buf = src;
		return 1;
	}
	/* the target range, reserved so no other mapping lands in it */
	dst = ret ? MAP_FAILED : mmap(NULL, npages * pg, PROT_NONE,
				      MAP_PRIVATE | MAP_ANONYMOUS |
				      MAP_NORESERVE, -1, 0);
	if (dst == MAP_FAILED) {
		ret = ret ? ret : -errno;
		munmap(src, npages * pg);
		free(pfn);
		return ret;
	}
	ret = move_pages(src, dst, pfn, npages);
	free(pfn);
	if (ret) {
		munmap(dst, npages * pg);
		return ret;
	}
	*buf = dst;
	return 0;
}

void scattered_buf_free(void *buf, size_t len)
{
	size_t pg = page_size();

	if (buf)
		munmap(buf, (len + pg - 1) / pg * pg);
}
