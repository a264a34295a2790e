// SPDX-License-Identifier: GPL-2.0
/* crc32c vectors and the verify block pattern: round trip and detection. */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "verify.h"

TEST(crc32c_known_vectors)
{
	unsigned char zeros[32] = { 0 }, ones[32], inc[32];
	int i;

	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < 32; i++)
		inc[i] = i;
	/* the check value of CRC-32C, and RFC 3720 (iSCSI) B.4 vectors */
	EXPECT_EQ(0xe3069283u, crc32c(0, "123456789", 9));
	EXPECT_EQ(0u, crc32c(0, "", 0));
	EXPECT_EQ(0x8a9136aau, crc32c(0, zeros, sizeof(zeros)));
	EXPECT_EQ(0x62a8ab43u, crc32c(0, ones, sizeof(ones)));
	EXPECT_EQ(0x46dd794eu, crc32c(0, inc, sizeof(inc)));
}

TEST(crc32c_continues_across_calls)
{
	const char *s = "The quick brown fox jumps over the lazy dog, twice over";
	size_t len = strlen(s), cut;
	uint32_t whole = crc32c(0, s, len);

	/* every split point, so both the 8-byte and the byte loop are hit */
	for (cut = 0; cut <= len; cut++)
		ASSERT_EQ(whole, crc32c(crc32c(0, s, cut), s + cut, len - cut));
}

static void *block(size_t len)
{
	void *b = NULL;

	if (posix_memalign(&b, 4096, len))
		return NULL;
	return b;
}

TEST(round_trip_sizes_and_generations)
{
	static const size_t sizes[] = { 512, 4096, 65536, 1 << 20 };
	struct verify_mismatch mm;
	unsigned int i, gen;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *b = block(sizes[i]);

		ASSERT_NE(NULL, b);
		for (gen = 1; gen < 4; gen++) {
			uint64_t off = (uint64_t)gen * sizes[i] * 7;

			verify_fill(b, sizes[i], off, 42, gen);
			ASSERT_EQ(0, verify_check(b, sizes[i], off, 42, gen, &mm))
				TH_LOG("%s", mm.what);
			/* 0 accepts whatever generation the block carries */
			ASSERT_EQ(0, verify_check(b, sizes[i], off, 42, 0, &mm));
		}
		free(b);
	}
}

TEST(flipped_payload_byte_is_found)
{
	unsigned char *b = block(4096);
	struct verify_mismatch mm;

	ASSERT_NE(NULL, b);
	verify_fill(b, 4096, 8192, 7, 1);
	b[1000] ^= 0x01;
	ASSERT_EQ(-1, verify_check(b, 4096, 8192, 7, 1, &mm));
	EXPECT_EQ(8192u, mm.offset);
	EXPECT_NE(NULL, strstr(mm.what, "payload byte +1000"));
	EXPECT_NE(NULL, strstr(mm.what, "expected"));
	/* the very last byte too (the partial-word tail of the payload) */
	b[1000] ^= 0x01;
	b[4095] ^= 0x80;
	ASSERT_EQ(-1, verify_check(b, 4096, 8192, 7, 1, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "payload byte +4095"));
	free(b);
}

TEST(flipped_header_byte_is_found)
{
	unsigned char *b = block(4096);
	struct verify_mismatch mm;

	ASSERT_NE(NULL, b);
	verify_fill(b, 4096, 0, 7, 1);
	b[26] ^= 0x10;		/* inside the generation field */
	ASSERT_EQ(-1, verify_check(b, 4096, 0, 7, 0, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "header crc32c"));
	free(b);
}

TEST(misdirected_block_wrong_offset)
{
	unsigned char *b = block(4096);
	struct verify_mismatch mm;

	ASSERT_NE(NULL, b);
	verify_fill(b, 4096, 4096 * 5, 7, 1);
	/* the data of block 5 read back at block 7 */
	ASSERT_EQ(-1, verify_check(b, 4096, 4096 * 7, 7, 0, &mm));
	EXPECT_EQ(4096u * 7, mm.offset);
	EXPECT_NE(NULL, strstr(mm.what, "header offset: expected 0x7000, found 0x5000"))
		TH_LOG("%s", mm.what);
	free(b);
}

TEST(stale_generation_wrong_seed_and_zeroes)
{
	unsigned char *b = block(4096);
	struct verify_mismatch mm;

	ASSERT_NE(NULL, b);
	verify_fill(b, 4096, 0, 7, 2);
	ASSERT_EQ(-1, verify_check(b, 4096, 0, 7, 3, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "generation: expected 0x3, found 0x2"));
	ASSERT_EQ(-1, verify_check(b, 4096, 0, 8, 0, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "seed"));
	ASSERT_EQ(-1, verify_check(b, 2048, 0, 7, 0, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "block length"));
	memset(b, 0, 4096);
	ASSERT_EQ(-1, verify_check(b, 4096, 0, 7, 0, &mm));
	EXPECT_NE(NULL, strstr(mm.what, "magic"));
	free(b);
}

TEST(payload_depends_on_offset_seed_and_generation)
{
	unsigned char *a = block(4096), *b = block(4096);

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	verify_fill(a, 4096, 0, 7, 1);
	verify_fill(b, 4096, 0, 7, 2);
	EXPECT_NE(0, memcmp(a + VERIFY_HDR_SIZE, b + VERIFY_HDR_SIZE,
			    4096 - VERIFY_HDR_SIZE));
	verify_fill(b, 4096, 4096, 7, 1);
	EXPECT_NE(0, memcmp(a + VERIFY_HDR_SIZE, b + VERIFY_HDR_SIZE,
			    4096 - VERIFY_HDR_SIZE));
	verify_fill(b, 4096, 0, 8, 1);
	EXPECT_NE(0, memcmp(a + VERIFY_HDR_SIZE, b + VERIFY_HDR_SIZE,
			    4096 - VERIFY_HDR_SIZE));
	verify_fill(b, 4096, 0, 7, 1);
	EXPECT_EQ(0, memcmp(a, b, 4096));
	free(a);
	free(b);
}

TEST_HARNESS_MAIN
