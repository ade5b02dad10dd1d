#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What bounds a kernel, in one device command, from the root of a main tree:
#
#   bench/experiments/ncu.sh OUT KERNEL BENCH_ARGS...
#
# builds bench_primitives (once: /tmp/ncu-build), runs it once to fill the cache, then ncu of the
# first launch of KERNEL (a regex: mj_search_tiles) that `bench_primitives BENCH_ARGS` makes
# after one skipped (the warm-up), with the sections that say where its time goes: speed of
# light, occupancy, launch, memory workload, warp states (stall reasons) and the scheduler.
# Prints the figures the notes quote and the stall reasons ncu names; the whole report goes to
# OUT/ncu_KERNEL.txt. ncu locks the clocks (SM 1.5 GHz on an H200), so its durations run longer
# than the bench's: compare kernels within one run, not with the bench's ms. Example:
#   bench/experiments/ncu.sh $OUT mj_search_tiles --only search --case u32 --lg 27 --reps 1
# NCU_SKIP=N profiles the launch after N of KERNEL's (default 1: the bench checks once, then
# times; the search bench's counts with --reps 1 are NCU_SKIP=3). NCU_TAG names the report
# (default the kernel). NCU_SASS=1 adds the source counters and writes OUT/sass_TAG.csv, ncu's
# per-instruction page (SASS, warp-state samples and instructions executed a line).
# NCU_TIMES=1 instead times every launch of the kernels KERNEL matches (e.g. mj_ for all of a
# primitive's), no skip, and prints one line a launch, its kernel and duration in ncu's unit:
# where a multi-kernel run's time goes (e.g. `NCU_TIMES=1 bench/experiments/ncu.sh $OUT mj_
# --only join --lg 27 --reps 1`).
set -u
out=${1:?usage: ncu.sh OUT KERNEL BENCH_ARGS...}
kernel=${2:?}
shift 2
export PATH=$PATH:/usr/local/cuda/bin MERGEJIT_CACHE_DIR=/tmp/ncu-cache
t0=$(date +%s)
b=/tmp/ncu-build/bench/bench_primitives
if [ ! -x $b ]; then
    mkdir -p /tmp/ncu-build
    cmake -S . -B /tmp/ncu-build -DCMAKE_BUILD_TYPE=Release > /tmp/ncu-build/cfg.log 2>&1
    cmake --build /tmp/ncu-build -j"$(nproc)" --target bench_primitives > /tmp/ncu-build/b.log 2>&1
    rc=$?
    echo "built rc $rc in $(( $(date +%s) - t0 )) s"
    [ $rc = 0 ] || { tail -30 /tmp/ncu-build/b.log; exit 1; }
fi
$b "$@" > /dev/null 2>&1
sections="--section SpeedOfLight --section Occupancy --section LaunchStats
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
tag=${NCU_TAG:-${kernel//[^A-Za-z0-9_]/_}}
report="$out/ncu_$tag.txt"
if [ "${NCU_TIMES-0}" = 1 ]; then
    timeout 300 ncu -k regex:"$kernel" --metrics gpu__time_duration.sum $b "$@" > "$report" 2>&1
    echo "ncu rc $? in $(( $(date +%s) - t0 )) s"
    awk '/^  [A-Za-z_][A-Za-z0-9_]*/ && /\(/ {k=$1} /gpu__time_duration.sum/ {print k, $(NF-1), $NF}' \
        "$report"
    exit 0
fi
export_args=""
if [ "${NCU_SASS-0}" = 1 ]; then
    sections="$sections --section SourceCounters --import-source no"
    export_args="-o /tmp/ncu-build/$tag -f"
fi
timeout 300 ncu -k regex:"$kernel" -s "${NCU_SKIP:-1}" -c 1 $sections $export_args $b "$@" \
    > "$report" 2>&1
echo "ncu rc $? in $(( $(date +%s) - t0 )) s"
if [ -n "$export_args" ]; then
    ncu -i /tmp/ncu-build/$tag.ncu-rep >> "$report" 2>&1
    ncu -i /tmp/ncu-build/$tag.ncu-rep --page source --print-source sass --csv \
        > "$out/sass_$tag.csv" 2> "$out/sass_$tag.err" || head -5 "$out/sass_$tag.err"
    [ -s "$out/sass_$tag.err" ] || rm -f "$out/sass_$tag.err"
fi
grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit (Shared|Registers)|Grid Size|Block Size|Executed Ipc A|Eligible Warps|Active Warps Per|Warp Cycles Per Issued" \
    "$report" | sed 's/  */ /g'
grep -oE "each warp of this kernel spends [0-9.]+ cycles[^.]*\." "$report" | head -4
