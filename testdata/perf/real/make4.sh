#!/bin/bash
# The fourth set of recordings in this folder (as root, perf 6.1.187 on Debian 12), in an empty
# folder given as $1. First, tracepoints, as off-CPU and syscall profiles are recorded. perf script
# prints a tracepoint's fields after its event (`sched:sched_switch: prev_comm=sh prev_pid=...`). stackcollapse-perf.pl (FlameGraph
# 41fee1f, SC below) reads no event from such a header, so it sums the samples of every event; its
# oracle per event is its output on the samples of that event alone, split out with awk.
set -e
cd "${1:-.}"
SC=${SC:-stackcollapse-perf.pl}
head -c 3000000 /usr/bin/perl > in.bin
perf record -q -o tracepoints.data -g -e sched:sched_switch -e syscalls:sys_enter_write -- \
  sh -c 'for i in 1 2 3; do xz -6 -T2 -c in.bin > out.xz; sleep 0.01; done'
perf script -i tracepoints.data > tracepoints.perf
for ev in sched:sched_switch syscalls:sys_enter_write; do
  awk -v ev=" $ev: " 'BEGIN { RS = ""; ORS = "\n\n" } index($0, ev)' tracepoints.perf > one.perf
  perl $SC one.perf > "tracepoints.stackcollapse-${ev#*:}.folded"
done
# Second, one recording printed three ways: plain; with the columns -F +misc,+tod add between the
# cpu and the time (`[000] K     2026-11-28 02:41:29.433185 31368.729784:`; tod needs -k); and with
# the side-band records --show-task-events --show-mmap-events add between samples
# (`PERF_RECORD_FORK(...)`, `PERF_RECORD_MMAP2 ...`). The same samples, so the same stacks; the
# script gives the same bytes for all three.
perf record -q -o columns.data -k CLOCK_MONOTONIC --sample-cpu -g -F 499 -- xz -6 -T2 -c in.bin > /dev/null
perf script -i columns.data > columns.perf
perf script -i columns.data -F +misc,+tod > columns-misc-tod.perf
perf script -i columns.data --show-task-events --show-mmap-events > columns-side-band.perf
perl $SC columns.perf > columns.stackcollapse.folded
rm one.perf in.bin out.xz
xz -9 tracepoints.perf columns.perf columns-misc-tod.perf columns-side-band.perf
