/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF programs as instructions, and loading them: what bpf_uapi and
 * zc_fuzz share (no clang, no libbpf: the kselftest builds alone).
 */
#ifndef UZC_BPF_H
#define UZC_BPF_H

#include <linux/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i)	INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o) JMP_IMM(BPF_JEQ, d, i, o)
#define JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(id)	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* bpf(2): its result, -1 with errno set on failure */
int uzc_sys_bpf(int cmd, union bpf_attr *attr);
/*
 * Load @n instructions as a GPL program of @type, the verifier's log
 * (level 1) in @log: the program's fd, or -errno.
 */
int uzc_bpf_load(const struct bpf_insn *insns, unsigned int n, int type,
		 char *log, unsigned int log_size);

#endif
