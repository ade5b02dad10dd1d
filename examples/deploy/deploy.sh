#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Deploying mergejit without NVRTC: tune the GPU once, build a bundle of the kernels a program
# needs with those tiles, and run the program from the bundle alone.
#
# usage: deploy.sh OUT_DIR [MERGEJIT] [SORT_FROM_BUNDLE]
#   MERGEJIT: the mergejit tool (default: mergejit on PATH)
#   SORT_FROM_BUNDLE: sort_from_bundle built from this folder (CMakeLists.txt; default
#   ./build/sort_from_bundle)
# On a machine without a GPU the tuning step is skipped (the bundle takes the built-in tiles)
# and the program builds its sorter from the bundle in a compile-only context.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
out=$1 mergejit=${2:-mergejit} loader=${3:-./build/sort_from_bundle}
mkdir -p "$out"

# 1. Tune: a quick sweep of the one configuration the program uses (mergesort, 4-byte keys,
#    no values) on this GPU, written to a tuning file of its own.
tuning=()
if log=$("$mergejit" tune --quick --primitives mergesort --keys 4 --values 0 \
             -o "$out/tuning" 2>&1); then
    echo "$log" | tail -n 3
    tuning=(--tuning "$out/tuning")
elif grep -q -e MJ_ERR_NO_DRIVER -e MJ_ERR_NO_DEVICE <<<"$log"; then
    echo "deploy: no GPU here: the bundle takes the built-in tiles"
else
    echo "$log" >&2
    exit 1
fi

# 2. Gen: cubins for sm_90 (and, by default, its PTX for newer GPUs) of a u32 mergesort.
"$mergejit" gen -o "$out/kernels.mjb" --sm 90 --types u32 --values 0 \
    --primitives mergesort "${tuning[@]}"
"$mergejit" gen --list "$out/kernels.mjb"

# 3. Run from the bundle with NVRTC out of reach: nothing may compile.
MERGEJIT_LIBNVRTC=/nonexistent/libnvrtc.so "$loader" "$out/kernels.mjb"
