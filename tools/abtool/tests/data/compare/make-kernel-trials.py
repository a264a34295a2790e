#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
How trials-base-kernel.jsonl was made (run once; the goldens
kernel.txt and kernel.md are built from the file, not from this script).

A base kernel measured with the copy path and the in-kernel row
("kernel") in the shapes of the guest check of 2026-12-05: null_blk far
ahead of ublk null, loop dio and md raid1 on tmpfs files and on ram
disks (brd), 2 boots x 2 trials, icount, 1 vCPU.
"""
import json
import random

random.seed(11)
# (target, legs, backing, rw, bs, driver, kernel iops, copy / kernel)
CELLS = [("null", 1, "", "randread", 4096, "null_blk", 210000, 0.29),
         ("loop", 1, "tmpfs", "randwrite", 65536, "loop-dio", 10110, 0.58),
         ("loop", 1, "brd", "randwrite", 65536, "loop-dio", 6807, 0.83),
         ("mirror", 2, "brd", "randwrite", 65536, "md-raid1", 4666, 0.82)]


def record(path, cell, boot, trial):
    target, legs, backing, rw, bs, driver, kiops, frac = cell
    v = kiops * (1 if path == "kernel" else frac)
    v *= 1 + random.choice([0, 0, 0.001, -0.001, 0.002])
    v = round(v, 0)
    r = {"schema": "abtool-trial-1", "variant": "base",
         "kernel": "6.12.118", "flavor": "perf", "path": path}
    if path == "kernel":
        r["driver"] = driver + ("/loop-dio" if target == "mirror" and
                                backing == "tmpfs" else "")
    r.update({"clock": "icount", "accel": "tcg", "host": "qemu-on-vm",
              "date": "2026-12-05T03:%02d:%02dZ" % (boot * 10 + trial,
                                                    bs % 60),
              "boot": boot, "trial": trial, "cpus": 1})
    c = {"target": target, "legs": legs, "rw": rw, "bs": bs,
         "iodepth": 16, "jobs": 1}
    if backing:
        c["backing"] = backing
    r["cell"] = c
    r["metrics"] = {"iops": v, "lat_p99_us": round(16e6 / v / 0.8, 1)}
    return json.dumps(r, separators=(",", ":"))


with open("trials-base-kernel.jsonl", "w") as f:
    for boot in range(2):
        for trial in range(2):
            for path in (["copy", "kernel"] if trial % 2 == 0
                         else ["kernel", "copy"]):
                for cell in CELLS:
                    print(record(path, cell, boot, trial), file=f)
