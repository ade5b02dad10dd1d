#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# On a machine of two or more GPUs (nvidia-h200-x2), from the root of this branch
# (exp/multi-bracketed-search): each splitter searched only in its bracket of the shard,
# tested (test_gpu_multi with threads and processes, the Python distributed tests with
# torchrun) and measured against main's build (bench_multi, plan phase apart) in one command.
# Needs main's tree in .gpu/base (git archive main | tar -x -C .gpu/base) and the Check debs in
# .device-debs.
cd "$(dirname "$0")/.."; ROOT=$PWD
T0=$(date +%s); NG=$(nvidia-smi -L | wc -l); echo "$NG GPUs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/deps && for f in .device-debs/*.deb; do dpkg -x $f /tmp/deps; done
export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=/tmp/deps
(cmake -S . -B /tmp/br -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/br -j20 --target test_gpu_multi bench_multi mergejit) > /tmp/br.log 2>&1 &
(cmake -S .gpu/base -B /tmp/main -DCMAKE_BUILD_TYPE=Release -DMJ_BUILD_TESTS=OFF && cmake --build /tmp/main -j12 --target bench_multi) > /tmp/main.log 2>&1 &
wait; echo "built at $(( $(date +%s) - T0 )) s"
[ -x /tmp/br/tests/test_gpu_multi ] || { tail -n 30 /tmp/br.log; exit 1; }
export MERGEJIT_CACHE_DIR=/tmp/mjcache
(cd /tmp/br/tests && MJ_TEST_SMALL=1 timeout 150 ./test_gpu_multi > /tmp/multi.log 2>&1; echo "test_gpu_multi rc $?")
grep -h "Checks\|:F:\|:E:" /tmp/multi.log | head -8
export MERGEJIT_LIBRARY=/tmp/br/libmergejit.so PYTHONPATH=$ROOT/python
(cd python && timeout 100 python3 -m pytest -q -rs tests/test_distributed.py 2>&1 | tail -n 3; echo "pytest distributed rc ${PIPESTATUS[0]}")
echo "tests at $(( $(date +%s) - T0 )) s"
for side in main br main br; do
  echo "== $side"
  timeout 100 /tmp/$side/bench/bench_multi --sizes 2^24,2^27,2^29,2^30 --types u32,u64 --reps 3
done
echo "done at $(( $(date +%s) - T0 )) s"
