#!/bin/bash
# task-clock of a fixed amount of work on CPU 0, with CPU 1 idle and busy
n=$(nproc)
run() { perf stat -x, -e task-clock -- taskset -c 0 dd if=/dev/zero of=/dev/null bs=64k count=20000 2>&1 | grep task-clock | cut -d, -f1; }
t0=$(date +%s%N)
for i in 1 2 3; do echo "idle-other: $(run) ms"; done
other=$((n - 1))
taskset -c $other bash -c 'while :; do :; done' &
sp=$!
sleep 0.2
for i in 1 2 3; do echo "busy-other(cpu$other): $(run) ms"; done
kill $sp
