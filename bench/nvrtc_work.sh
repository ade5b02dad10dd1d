#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NVRTC's work for each kernel program of one sorter, counted in millions of CPU instructions
# by valgrind's cachegrind: as PTX (the front end and NVIDIA's optimizer) and as a cubin
# (ptxas too), each less the same process generating that program without compiling it.
# Unlike CPU times (bench_frontend), the counts do not change with the host's load, so two
# trees compare on a busy machine where times vary by a third from run to run. About 5.3 G
# instructions are a second of one core on the 2-core CI host. Slow: valgrind runs NVRTC
# about 50 times slower, some 20 s a program. FE_LOAD=DIR in the environment counts the
# programs in DIR (bench_frontend's FE_DUMP, edited) instead of the generated ones.
#   bench/nvrtc_work.sh path/to/bench_frontend [its options: --primitive P --type T --only K ...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 path/to/bench_frontend [bench_frontend options]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: needs valgrind (cachegrind)" >&2; exit 2; }
BF=$1
shift
# Instructions (M) of one bench_frontend run.
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$BF" "$@" 2>&1 \
    >/dev/null | awk '/I +refs:/ {gsub(",", "", $NF); printf "%.0f", $NF / 1e6}'
}
printf "%-22s %9s %9s %9s\n" program "ptx M" "cubin M" "ptxas M"
for k in $("$BF" "$@" --once none); do
  base=$(count "$@" --only "$k" --once none)
  ptx=$(count "$@" --only "$k" --once ptx)
  cubin=$(count "$@" --only "$k" --once cubin)
  printf "%-22s %9d %9d %9d\n" "$k" $((ptx - base)) $((cubin - base)) $((cubin - ptx))
done
