// SPDX-License-Identifier: GPL-2.0
/*
 * Which data paths each kernel's UBLK_U_CMD_GET_FEATURES lets run: the
 * project's 6.12 kernels and upstream 7.3 share numbers with different
 * meanings (bit 0, io_uring ops 58/59, io command 0x23;
 * uapi/upstream.h), so a path must tell the kernels apart by their
 * feature bits.  The feature sets are what each kernel reports; the
 * probes of splice and fused also ask the host's io_uring for ops, so
 * only their refusals of 7.3 (decided by its bits) are host-independent.
 */
#include <errno.h>

#include "kselftest_harness.h"
#include "ublk.h"
#include "uapi/fused.h"
#include "uapi/regbuf.h"
#include "uapi/splice_rsrc.h"
#include "uapi/ublk_bpf.h"
#include "uapi/upstream.h"

/* 6.12's GET_FEATURES: UBLK_F_ALL without bit 0, bits 1..8 */
#define F_612		(((1ULL << 9) - 1) & ~UBLK_F_SUPPORT_ZERO_COPY)
#define F_SPLICE	(F_612 | UBLK_F_SUPPORT_ZERO_COPY | UBLK_F_AUTO_LEND)
#define F_FUSED		(F_612 | UBLK_F_SUPPORT_ZERO_COPY)
#define F_REGBUF	(F_612 | UBLK_F_REG_IO_BUF | UBLK_F_AUTO_BUF_REG)
#define F_BPF		(F_612 | UBLK_F_BPF)
/* 7.3's: UBLK_F_ALL, bits 0..20 (INTEGRITY with CONFIG_BLK_DEV_INTEGRITY) */
#define F_73		((1ULL << 21) - 1)
#define F_73_NO_INTEGRITY	(F_73 & ~UBLK_F_INTEGRITY)

static int probe(const char *path, uint64_t features)
{
	const struct ublk_path_ops *p = ublk_path_find(path);
	char why[128] = "";

	if (!p)
		return -ENOENT;
	return p->probe(features, why, sizeof(why));
}

static uint64_t regbuf_flags(uint64_t features)
{
	const struct ublk_path_ops *p = ublk_path_find("regbuf");

	return p->dev_flags_for(features);
}

TEST(upstream_runs_the_merged_designs)
{
	static const struct { const char *path; int want; } rows[] = {
		{ "copy", 0 }, { "user_copy", 0 }, { "regbuf", 0 },
		{ "autobuf", 0 }, { "batch", 0 },
		{ "splice", -EOPNOTSUPP }, { "autolend", -EOPNOTSUPP },
		{ "fused", -EOPNOTSUPP }, { "bpf", -EOPNOTSUPP },
	};
	const uint64_t f[] = { F_73, F_73_NO_INTEGRITY };
	unsigned int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			const char *path = rows[i].path;

			EXPECT_EQ(rows[i].want, probe(path, f[k]))
				TH_LOG("path %s, features 0x%llx", path,
				       (unsigned long long)f[k]);
		}
}

TEST(regbuf_flag_is_the_kernels_own)
{
	EXPECT_EQ(UBLK_F_SUPPORT_ZERO_COPY, regbuf_flags(F_73));
	EXPECT_EQ(UBLK_F_REG_IO_BUF, regbuf_flags(F_REGBUF));
	/* bit 0 of a 6.12 series is not REGISTER_IO_BUF */
	EXPECT_EQ(0, regbuf_flags(F_SPLICE));
	EXPECT_EQ(0, regbuf_flags(F_FUSED));
	EXPECT_EQ(0, regbuf_flags(F_612));
}

TEST(series_kernels_are_not_upstream)
{
	uint64_t f[] = { F_612, F_SPLICE, F_FUSED, F_REGBUF, F_BPF };
	unsigned int k;

	for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		EXPECT_FALSE(ublk_features_upstream(f[k])) TH_LOG("kernel %u", k);
		EXPECT_EQ(-EOPNOTSUPP, probe("batch", f[k])) TH_LOG("kernel %u", k);
		EXPECT_EQ(k == 3 ? 0 : -EOPNOTSUPP, probe("regbuf", f[k]))
			TH_LOG("kernel %u", k);
		EXPECT_EQ(k == 3 ? 0 : -EOPNOTSUPP, probe("autobuf", f[k]))
			TH_LOG("kernel %u", k);
	}
	EXPECT_TRUE(ublk_features_upstream(F_73));
	EXPECT_EQ(0, probe("autolend", F_SPLICE));
	EXPECT_EQ(0, probe("bpf", F_BPF));
}

/* the numbers uapi/upstream.h lists: a change makes its table stale */
TEST(numbers_uapi_upstream_lists)
{
	/* the series' own bits are clear of 7.3's */
	EXPECT_EQ(0, UBLK_F_UPSTREAM_ONLY & (UBLK_F_SUPPORT_ZERO_COPY |
		  UBLK_F_AUTO_BUF_REG | UBLK_F_REG_IO_BUF | UBLK_F_AUTO_LEND |
		  UBLK_F_BPF));
	EXPECT_EQ(0, (UBLK_F_REG_IO_BUF | UBLK_F_AUTO_LEND | UBLK_F_BPF) & F_73);
	EXPECT_EQ(0, UBLK_IO_F_BPF & ((1U << 20) - 1));
	/* shared with the same meaning */
	EXPECT_EQ(11, __builtin_ctzll(UBLK_F_AUTO_BUF_REG));
	EXPECT_EQ(0x23, _IOC_NR(UBLK_U_IO_REGISTER_IO_BUF));
	EXPECT_EQ(0x24, _IOC_NR(UBLK_U_IO_UNREGISTER_IO_BUF));
	/* collisions: 7.3's RECV_ZC, EPOLL_WAIT; REGISTER_IO_BUF */
	EXPECT_EQ(58, IORING_OP_SPLICE_FROM);
	EXPECT_EQ(59, IORING_OP_BUF_REMOVE);
	EXPECT_EQ(58, IORING_OP_FUSED_CMD);
	EXPECT_EQ(UBLK_U_IO_REGISTER_IO_BUF, UBLK_U_IO_FUSED_SUBMIT_IO);
	/*
	 * the series on 7.3 (patches/splice-rsrc-7.3): the ops after 7.3's
	 * last (URING_CMD128, 64), the bits after 7.3's last (20), clear of
	 * every other series' bits
	 */
	EXPECT_EQ(65, IORING_OP_SPLICE_FROM_73);
	EXPECT_EQ(66, IORING_OP_BUF_REMOVE_73);
	EXPECT_EQ(21, __builtin_ctzll(UBLK_F_LEND));
	EXPECT_EQ(22, __builtin_ctzll(UBLK_F_AUTO_LEND_73));
	EXPECT_EQ(0, (UBLK_F_LEND | UBLK_F_AUTO_LEND_73) &
		  (UBLK_F_UPSTREAM_ONLY | F_73 | UBLK_F_SUPPORT_ZERO_COPY |
		   UBLK_F_AUTO_BUF_REG | UBLK_F_REG_IO_BUF | UBLK_F_AUTO_LEND |
		   UBLK_F_BPF));
	/* BATCH_IO's commands are 7.3's alone */
	EXPECT_EQ(0x25, _IOC_NR(UBLK_U_IO_PREP_IO_CMDS));
	EXPECT_EQ(0x26, _IOC_NR(UBLK_U_IO_COMMIT_IO_CMDS));
	EXPECT_EQ(0x27, _IOC_NR(UBLK_U_IO_FETCH_IO_CMDS));
	EXPECT_EQ(8, sizeof(struct ublk_elem_header));
	EXPECT_EQ(16, sizeof(struct ublk_batch_io));
	/* the bpf series' control commands are free upstream (0x01-0x19) */
	EXPECT_EQ(0x0a, _IOC_NR(UBLK_U_CMD_REG_BPF_PROG));
	EXPECT_EQ(0x0b, _IOC_NR(UBLK_U_CMD_UNREG_BPF_PROG));
}

TEST_HARNESS_MAIN
