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
set -u
out=${1:?usage: ncu.sh OUT KERNEL BENCH_ARGS...}
kernel=${2:?}
shift 2
export PATH=$PATH:/usr/local/cuda/bin MERGEJIT_CACHE_DIR=/tmp/ncu-cache
t0=$(date +%s)
b=/tmp/ncu-build/bench/bench_primitives
if [ ! -x $b ]; then
    cmake -S . -B /tmp/ncu-build -DCMAKE_BUILD_TYPE=Release > "$out/ncu-cfg.log" 2>&1
    cmake --build /tmp/ncu-build -j"$(nproc)" --target bench_primitives > "$out/ncu-build.log" 2>&1
    echo "built rc $? in $(( $(date +%s) - t0 )) s"
fi
$b "$@" > /dev/null 2>&1
sections="--section SpeedOfLight --section Occupancy --section LaunchStats
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
report="$out/ncu_${kernel//[^A-Za-z0-9_]/_}.txt"
timeout 300 ncu -k regex:"$kernel" -s 1 -c 1 $sections $b "$@" > "$report" 2>&1
echo "ncu rc $? in $(( $(date +%s) - t0 )) s"
grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit (Shared|Registers)|Grid Size|Block Size|Executed Ipc A|Eligible Warps|Active Warps Per|Warp Cycles Per Issued" \
    "$report" | sed 's/  */ /g'
grep -oE "each warp of this kernel spends [0-9.]+ cycles[^.]*\." "$report" | head -4
