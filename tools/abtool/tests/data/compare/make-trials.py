#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
How the fixed trial files next to this script were made (run once; the
golden reports in ../../golden/ are built from the files, not from this
script, so do not rerun it unless you mean to regenerate the goldens).

Shapes of a `make ab QUICK=1` run under icount: 2 boots x 2 trials per
variant, interleaved; many values repeat exactly (icount), one cell is
bimodal (null 64K), user_copy is close to copy, the zero-copy paths are
well apart.  old-format.jsonl has no boot/trial ids (written before
abtool run recorded them).
"""
import json
import random

random.seed(15)
CELLS = [("null", 1, "randread", 4096), ("null", 1, "randread", 65536),
         ("loop", 1, "randread", 524288), ("mirror", 2, "randwrite", 65536)]
BASE = {("null", 4096): 75360, ("null", 65536): 10560,
        ("loop", 524288): 756.7, ("mirror", 65536): 3120}
PATHS = {"splice-rsrc": [("copy", 1.0), ("user_copy", 0.999),
                         ("splice", 1.39)],
         "fused": [("fused", 1.57)]}


def iops(target, bs, factor, boot, trial):
    v = BASE[(target, bs)] * factor
    if target == "null" and bs == 65536 and factor > 1.2:
        v *= 1.0 if (boot + trial) % 2 else 1.21   # bimodal
    # icount: a tenth of a percent of jitter, often none at all
    j = random.choice([0, 0, 0.001, -0.001, 0.002])
    return round(v * (1 + j), 1 if v < 1000 else 0)


def record(variant, path, factor, cell, boot, trial, ids=True):
    target, legs, rw, bs = cell
    v = iops(target, bs, factor, boot, trial)
    r = {"schema": "abtool-trial-1", "variant": variant,
         "kernel": "6.12.118+", "flavor": "perf", "path": path,
         "clock": "icount", "accel": "tcg", "host": "qemu-on-vm",
         "date": "2026-12-03T17:%02d:%02dZ" % (boot * 10 + trial, bs % 60)}
    if ids:
        r["boot"], r["trial"] = boot, trial
    r["cell"] = {"target": target, "legs": legs, "rw": rw, "bs": bs,
                 "iodepth": 16, "jobs": 1}
    r["metrics"] = {"iops": v, "lat_p99_us": round(16e6 / v / 0.8, 1),
                    "server_cpu_us_per_io": round(9.1 / factor, 3)}
    return json.dumps(r, separators=(",", ":"))


for variant, paths in PATHS.items():
    with open("trials-%s.jsonl" % variant, "w") as f:
        for boot in range(2):
            for trial in range(2):
                for path, factor in paths:
                    for cell in CELLS:
                        print(record(variant, path, factor, cell, boot,
                                     trial), file=f)
with open("old-format.jsonl", "w") as f:
    for variant, paths in PATHS.items():
        for path, factor in paths[:1]:
            for k in range(4):
                print(record(variant, path, factor, CELLS[0], k // 2, k % 2,
                             ids=False), file=f)
