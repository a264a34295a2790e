/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksummed block patterns for --verify.  Every written block starts
 * with a little-endian header; the rest is a payload generated from
 * (seed, offset, generation), so a reader can regenerate and compare it
 * byte for byte without keeping copies of what was written.
 *
 *   0  magic "ABVF"     16 seed              32 crc32c of the payload
 *   4  crc32c of header 24 generation (>= 1) 36 reserved, 0
 *   8  device offset    28 block length      40 payload...
 */
#ifndef UZC_SRV_VERIFY_H
#define UZC_SRV_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define VERIFY_MAGIC	0x46564241u	/* "ABVF" in little-endian */
#define VERIFY_HDR_SIZE	40
#define VERIFY_WHAT_LEN	160

struct verify_mismatch {
	uint64_t offset;		/* device offset of the block */
	char what[VERIFY_WHAT_LEN];	/* "field: expected X, found Y" */
};

/*
 * CRC-32C (Castagnoli), reflected, init and final xor ~0: pass 0 to start,
 * or a previous result to continue.  crc32c(0, "123456789", 9) = 0xe3069283.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* Write the pattern for (offset, seed, generation) into @buf. */
void verify_fill(void *buf, size_t len, uint64_t offset, uint64_t seed,
		 uint32_t generation);

/*
 * Check @buf read from @offset.  @expect_gen 0 accepts any generation the
 * header claims (data written by an earlier run); otherwise it must match,
 * which catches lost and stale writes.  Returns 0, or -1 with @mm set.
 */
int verify_check(const void *buf, size_t len, uint64_t offset, uint64_t seed,
		 uint32_t expect_gen, struct verify_mismatch *mm);

#endif
