#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# On a GPU machine, from the root of this branch (exp/select-occupancy): select of keys of at
# most 4 bytes bounded to 32 registers (2048 threads a multiprocessor) against main's build
# (40 registers, 1536), tested and measured in one command. Needs main's tree in .gpu/base
# (git archive main | tar -x -C .gpu/base) and the Check debs in .device-debs.
cd "$(dirname "$0")/.."
T0=$(date +%s)
mkdir -p /tmp/deps && for f in .device-debs/*.deb; do dpkg -x $f /tmp/deps; done
export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=/tmp/deps
(cmake -S . -B /tmp/occ -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/occ -j10 --target test_gpu_select bench_primitives) > /tmp/occ_build.log 2>&1 &
(cmake -S .gpu/base -B /tmp/main -DCMAKE_BUILD_TYPE=Release -DMJ_BUILD_TESTS=OFF && cmake --build /tmp/main -j6 --target bench_primitives) > /tmp/main_build.log 2>&1 &
wait; echo "built at $(( $(date +%s) - T0 )) s"
MERGEJIT_CACHE_DIR=/tmp/c_occ timeout 150 /tmp/occ/tests/test_gpu_select 2>&1 | grep "Checks\|:F:\|:E:"
for side in main occ main occ; do
  echo "== $side"
  MERGEJIT_CACHE_DIR=/tmp/c_$side timeout 100 /tmp/$side/bench/bench_primitives --only select --reps 5 | grep "^select\|^unique"
done
# Tiles with the bound (2048 / NT blocks): 256 threads now get 8 blocks at 32 registers.
for t in 256x15 256x23 512x15 1024x11; do
  echo "== occ MERGEJIT_TILE=$t"
  MERGEJIT_CACHE_DIR=/tmp/c_occ_$t MERGEJIT_TILE=$t timeout 60 /tmp/occ/bench/bench_primitives --only select --lg 27 --reps 5 | grep "^select\|^unique"
done
echo "done at $(( $(date +%s) - T0 )) s"
