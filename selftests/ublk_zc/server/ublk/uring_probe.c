// SPDX-License-Identifier: GPL-2.0
/* What io_uring offers on the running kernel; see ublk.h. */
#include <liburing.h>
#include <stdbool.h>

#include "ublk.h"

bool uring_op_supported(int op)
{
	struct io_uring_probe *p = io_uring_get_probe();
	bool ok;

	if (!p)
		return false;
	ok = io_uring_opcode_supported(p, op);
	io_uring_free_probe(p);
	return ok;
}
