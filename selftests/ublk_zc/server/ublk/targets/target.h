/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_TARGET_H
#define UZC_SRV_TARGET_H

#include "ublk.h"

/* An open() for targets whose backings need nothing else (loop, mirror) */
int target_open_backings(struct ublk_tgt *t, char *err, size_t errlen);
void target_close_backings(struct ublk_tgt *t);

#endif
