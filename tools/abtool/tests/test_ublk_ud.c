// SPDX-License-Identifier: GPL-2.0
/*
 * The queue ring's user_data: what ublk_ud() packs, the ublk_ud_*()
 * decoders read back, each field on its own at its widest value too
 * (a field spilling into the next would hand a CQE to the wrong tag).
 */
#include "kselftest_harness.h"
#include "ublk.h"

static void check_round_trip(struct __test_metadata *_metadata,
			     unsigned int tag, unsigned int kind,
			     unsigned int leg)
{
	uint64_t ud = ublk_ud(tag, kind, leg);

	EXPECT_EQ(tag, ublk_ud_tag(ud));
	EXPECT_EQ(kind, ublk_ud_kind(ud));
	EXPECT_EQ(leg, ublk_ud_leg(ud));
}

TEST(round_trip)
{
	check_round_trip(_metadata, 0, UD_CMD, 0);
	check_round_trip(_metadata, 17, UD_LEG, 3);
	check_round_trip(_metadata, UBLK_MAX_QUEUE_DEPTH - 1, UD_AUX, 1);
	check_round_trip(_metadata, 0xffff, UD_FLUSH, 0xff);
}

TEST(fields_stay_apart)
{
	check_round_trip(_metadata, 0xffff, 0, 0);
	check_round_trip(_metadata, 0, 0xff, 0);
	check_round_trip(_metadata, 0, 0, 0xff);
	/* the layout abtool has always used: tag | kind << 16 | leg << 24 */
	EXPECT_EQ(0x03040002ULL, ublk_ud(2, UD_AUX, 3));
}

TEST_HARNESS_MAIN
