// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <string.h>

#include "prng.h"

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t prng_mix(uint64_t a, uint64_t b)
{
	uint64_t st = a ^ (b * 0xd6e8feb86659fd93ULL);

	splitmix64(&st);
	return splitmix64(&st) ^ b;
}

void prng_seed(struct prng *p, uint64_t seed)
{
	uint64_t st = seed;
	int i;

	for (i = 0; i < 4; i++)
		p->s[i] = splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t prng_next(struct prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t prng_below(struct prng *p, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)prng_next(p) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t threshold = -n % n;

		while (low < threshold) {
			m = (unsigned __int128)prng_next(p) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

void prng_fill(void *buf, size_t len, uint64_t seed)
{
	unsigned char *b = buf;
	uint64_t st = seed, v;

	for (; len >= 8; len -= 8, b += 8) {
		v = htole64(splitmix64(&st));	/* same bytes on any host */
		memcpy(b, &v, 8);
	}
	if (len) {
		v = htole64(splitmix64(&st));
		memcpy(b, &v, len);
	}
}
