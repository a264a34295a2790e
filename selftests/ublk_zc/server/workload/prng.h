/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded, deterministic pseudo-random numbers: xoshiro256** for the I/O
 * sequence, splitmix64 for seeding and for block payloads.  The same seed
 * gives the same numbers on every run, host and kernel variant, which is
 * what makes two workloads identical.
 */
#ifndef UZC_SRV_PRNG_H
#define UZC_SRV_PRNG_H

#include <stddef.h>
#include <stdint.h>

struct prng {
	uint64_t s[4];
};

/* One splitmix64 step: advances *state, returns a well-mixed value. */
uint64_t splitmix64(uint64_t *state);

/* Hash two values into one: derives per-job and per-block seeds. */
uint64_t prng_mix(uint64_t a, uint64_t b);

void prng_seed(struct prng *p, uint64_t seed);
uint64_t prng_next(struct prng *p);
/* Uniform in [0, n); n must be > 0.  Unbiased (Lemire's method). */
uint64_t prng_below(struct prng *p, uint64_t n);

/* Fill @buf with @len bytes that depend only on @seed. */
void prng_fill(void *buf, size_t len, uint64_t seed);

#endif
