#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
How trials-n8-*.jsonl were made (run once; the goldens n8*.txt and
n8.md are built from the files, not from this script, so do not rerun
it unless you mean to regenerate them).

One run in the shape issue 34 asks for: 2 boots x 4 trials = 8 a side,
every record with its run_id and series_commit, and a case for every
rule of the verdicts:

- base/user_copy is 10% below base/copy everywhere: worse;
- splice-rsrc/user_copy runs base/user_copy's code on another kernel:
  within 1.2% of it, the measured null (--null);
- splice-rsrc/splice is +39% (better), except null randread 512K at
  +0.4% (equivalent) and loop@brd randwrite 64K at +1.2% with a spread
  of a percent (inconclusive); one of its records has no lat_p99_us,
  so that cell's n is 7;
- fused/fused is +57%, but cannot serve the mirror ("skipped"
  records): its geomean is over 5 cells, not 6;
- base/kernel is the in-kernel driver, with no server (no server CPU,
  SQEs or copied bytes): its fraction table of server CPU would be all
  "-" and is not printed;
- sqes_per_io is a counter: the same in every trial (values, not
  tested); copied_bytes_per_io is 0 on the zero-copy paths, so its
  geomean has no logarithm.

And two files for the input rules of the same issue (item 5):
dup-n8-fused.jsonl is the first six records of trials-n8-fused.jsonl
twice and a blank line (not the same bytes as any file, the same
trials); other-run-n8-fused.jsonl is trials-n8-fused.jsonl as another
run of another commit would have written it.
"""
import json
import random

random.seed(34)
RUN, COMMIT = "20261207-120000", "b1d5c6d"
# (target, legs, backing, rw, bs, driver, base/copy IOPS, kernel / copy)
CELLS = [("null", 1, "", "randread", 4096, "null_blk", 53070, 3.9),
         ("null", 1, "", "randread", 524288, "null_blk", 761.0, 8.5),
         ("null", 1, "", "randwrite", 65536, "null_blk", 10710, 5.2),
         ("loop", 1, "tmpfs", "randread", 65536, "loop-dio", 5644, 1.67),
         ("loop", 1, "brd", "randwrite", 65536, "loop-dio", 5528, 1.21),
         ("mirror", 2, "brd", "randwrite", 65536, "md-raid1", 3712, 1.23)]
# the cross-kernel null of user_copy, per cell
NULL = [-0.006, 0.003, -0.002, -0.012, 0.001, -0.004]
SQES = {"copy": 2, "user_copy": 3, "splice": 4, "fused": 2}


def factor(variant, path, k):
    if path == "kernel":
        return CELLS[k][7]
    if path == "user_copy":
        return 0.90 * (1 + (NULL[k] if variant == "splice-rsrc" else 0))
    if path == "splice":
        return {1: 1.004, 4: 1.012}.get(k, 1.39)
    if path == "fused":
        return {0: 1.006}.get(k, 1.57)
    return 1.0


def spread(path, k):
    """Relative jitter of a trial: 0.1%, a percent in the noisy cell."""
    return 0.01 if path == "splice" and k == 4 else 0.001


def record(variant, path, k, boot, trial):
    target, legs, backing, rw, bs, driver, iops, _ = CELLS[k]
    r = {"schema": "abtool-trial-1", "variant": variant,
         "kernel": "6.12.118" + ("" if variant == "base" else "+"),
         "flavor": "perf", "path": path, "clock": "icount",
         "accel": "tcg", "host": "qemu-on-vm",
         "date": "2026-12-07T12:%02d:%02dZ" % (boot * 10 + trial, k),
         "boot": boot, "trial": trial, "cpus": 1,
         "run_id": RUN, "series_commit": COMMIT}
    if path == "kernel":
        r["driver"] = driver
    cell = {"target": target, "legs": legs, "rw": rw, "bs": bs,
            "iodepth": 16, "jobs": 1}
    if backing:
        cell["backing"] = backing
    r["cell"] = cell
    if path == "fused" and target == "mirror":
        r["skipped"] = "fused has no mirror target here"
        r["metrics"] = {}
        return r
    v = iops * factor(variant, path, k)
    v *= 1 + random.gauss(0, spread(path, k))
    v = round(v, 1)
    m = {"iops": v, "lat_p99_us": round(16e6 / v * 1.04, 1)}
    if path != "kernel":
        m["server_cpu_us_per_io"] = round(
            9.1 / factor(variant, path, k) * (1 + random.gauss(0, 0.002)),
            3)
        m["sqes_per_io"] = SQES[path]
        m["copied_bytes_per_io"] = bs if path in ("copy", "user_copy") \
            else 0
    if variant == "splice-rsrc" and path == "splice" and k == 3 and \
            boot == 1 and trial == 2:
        del m["lat_p99_us"]     # the record without the metric
    r["metrics"] = m
    return r


PATHS = {"base": ["copy", "user_copy", "kernel"],
         "splice-rsrc": ["user_copy", "splice"],
         "fused": ["fused"]}
for variant, paths in PATHS.items():
    with open("trials-n8-%s.jsonl" % variant, "w") as f:
        for boot in range(2):
            for trial in range(4):
                for k in range(len(CELLS)):
                    for path in paths:
                        print(json.dumps(record(variant, path, k, boot,
                                                trial),
                                         separators=(",", ":")), file=f)

with open("trials-n8-fused.jsonl") as f:
    fused = f.read().splitlines()
with open("dup-n8-fused.jsonl", "w") as f:
    print("\n".join(fused[:6] + fused[:6]) + "\n", file=f)
with open("other-run-n8-fused.jsonl", "w") as f:
    for line in fused:
        r = json.loads(line)
        r["run_id"], r["series_commit"] = "20261208-090000", "c0ffee1"
        r["date"] = r["date"].replace("12-07T12", "12-08T09")
        print(json.dumps(r, separators=(",", ":")), file=f)
