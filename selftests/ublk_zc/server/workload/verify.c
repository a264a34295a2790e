// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "prng.h"
#include "verify.h"

#define CRC32C_POLY	0x82f63b78u	/* reflected Castagnoli */

/* slicing-by-8: eight 256-entry tables, built once */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc32c_init_tables(void)
{
	uint32_t c;
	int i, j, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (c & 1 ? CRC32C_POLY : 0);
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
				crc_table[0][crc_table[k - 1][i] & 0xff];
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t w;

	pthread_once(&crc_once, crc32c_init_tables);
	crc = ~crc;
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		w = le64toh(w) ^ crc;
		crc = crc_table[7][w & 0xff] ^
		      crc_table[6][(w >> 8) & 0xff] ^
		      crc_table[5][(w >> 16) & 0xff] ^
		      crc_table[4][(w >> 24) & 0xff] ^
		      crc_table[3][(w >> 32) & 0xff] ^
		      crc_table[2][(w >> 40) & 0xff] ^
		      crc_table[1][(w >> 48) & 0xff] ^
		      crc_table[0][w >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

struct verify_hdr {
	uint32_t magic;
	uint32_t hdr_crc;
	uint64_t offset;
	uint64_t seed;
	uint32_t generation;
	uint32_t len;
	uint32_t payload_crc;
	uint32_t reserved;
};

_Static_assert(sizeof(struct verify_hdr) == VERIFY_HDR_SIZE, "header layout");

static uint64_t payload_seed(uint64_t offset, uint64_t seed, uint32_t gen)
{
	return prng_mix(prng_mix(seed, offset), gen);
}

static uint32_t hdr_crc(const struct verify_hdr *h)
{
	struct verify_hdr tmp = *h;

	tmp.hdr_crc = 0;
	return crc32c(0, &tmp, sizeof(tmp));
}

void verify_fill(void *buf, size_t len, uint64_t offset, uint64_t seed,
		 uint32_t generation)
{
	unsigned char *payload = (unsigned char *)buf + VERIFY_HDR_SIZE;
	size_t plen = len - VERIFY_HDR_SIZE;
	struct verify_hdr h = {
		.magic = htole32(VERIFY_MAGIC),
		.offset = htole64(offset),
		.seed = htole64(seed),
		.generation = htole32(generation),
		.len = htole32((uint32_t)len),
	};

	prng_fill(payload, plen, payload_seed(offset, seed, generation));
	h.payload_crc = htole32(crc32c(0, payload, plen));
	h.hdr_crc = htole32(hdr_crc(&h));
	memcpy(buf, &h, sizeof(h));
}

static int mismatch(struct verify_mismatch *mm, uint64_t offset,
		    const char *field, uint64_t expected, uint64_t found)
{
	if (mm) {
		mm->offset = offset;
		snprintf(mm->what, sizeof(mm->what),
			 "%s: expected %#llx, found %#llx", field,
			 (unsigned long long)expected,
			 (unsigned long long)found);
	}
	return -1;
}

/* Compare the payload with the regenerated pattern, 8 bytes at a time. */
static int check_payload(const unsigned char *p, size_t plen, uint64_t pseed,
			 uint32_t want_crc, uint64_t offset,
			 struct verify_mismatch *mm)
{
	unsigned char want[8];
	uint64_t st = pseed, v;
	size_t i, n, k;

	for (i = 0; i < plen; i += 8) {
		v = htole64(splitmix64(&st));
		memcpy(want, &v, 8);
		n = plen - i < 8 ? plen - i : 8;
		if (!memcmp(p + i, want, n))
			continue;
		for (k = 0; p[i + k] == want[k]; k++)
			;
		if (mm) {
			mm->offset = offset;
			snprintf(mm->what, sizeof(mm->what),
				 "payload byte +%zu: expected %#04x, found %#04x (payload crc32c expected %#010x, found %#010x)",
				 VERIFY_HDR_SIZE + i + k, want[k], p[i + k],
				 want_crc, crc32c(0, p, plen));
		}
		return -1;
	}
	return 0;
}

int verify_check(const void *buf, size_t len, uint64_t offset, uint64_t seed,
		 uint32_t expect_gen, struct verify_mismatch *mm)
{
	struct verify_hdr h;
	uint32_t gen;

	memcpy(&h, buf, sizeof(h));
	if (le32toh(h.magic) != VERIFY_MAGIC)
		return mismatch(mm, offset, "magic", VERIFY_MAGIC,
				le32toh(h.magic));
	if (le32toh(h.hdr_crc) != hdr_crc(&h))
		return mismatch(mm, offset, "header crc32c", hdr_crc(&h),
				le32toh(h.hdr_crc));
	if (le64toh(h.offset) != offset)
		return mismatch(mm, offset, "header offset", offset,
				le64toh(h.offset));
	if (le32toh(h.len) != len)
		return mismatch(mm, offset, "block length", len,
				le32toh(h.len));
	if (le64toh(h.seed) != seed)
		return mismatch(mm, offset, "seed", seed, le64toh(h.seed));
	gen = le32toh(h.generation);
	if (expect_gen && gen != expect_gen)
		return mismatch(mm, offset, "generation", expect_gen, gen);
	return check_payload((const unsigned char *)buf + VERIFY_HDR_SIZE,
			     len - VERIFY_HDR_SIZE,
			     payload_seed(offset, seed, gen),
			     le32toh(h.payload_crc), offset, mm);
}
