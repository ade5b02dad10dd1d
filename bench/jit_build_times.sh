#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Cold, disk-cache and in-memory build times of a sorter of every primitive (mergesort of a
# few key types and values) through `mergejit demo` (on a machine without a GPU it builds in a
# compile-only context; with one it also runs on 1000 keys): for each sorter, R runs each with
# a fresh cache directory, then the median (and range) of the cold build, its split (NVRTC
# front end + ptxas, summed over the kernels' programs), of a load from the disk cache in a
# second process, and of the same sorter asked for again in the first (the demo's "again:"
# line, found in the context's memory, in us). The cold build is what sorter creation
# compiles: every kernel the sorter's runs may launch.
#   bench/jit_build_times.sh [-r R] [--sm SM] path/to/mergejit
# MERGEJIT_JIT_THREADS=1 in the environment builds one program after another, for comparison.
set -euo pipefail
R=5
SM=90
while [ $# -gt 1 ]; do
  case $1 in
    -r) R=$2; shift 2 ;;
    --sm) SM=$2; shift 2 ;;
    *) echo "usage: $0 [-r R] [--sm SM] path/to/mergejit" >&2; exit 2 ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: $0 [-r R] [--sm SM] path/to/mergejit" >&2; exit 2; }
TOOL=$1
cases=(
  "u32 keys|--type u32"
  "f64+8 desc|--type f64 --values 8 --order desc"
  "u64 keys|--type u64"
  "u32+4 pairs|--type u32 --values 4"
  "merge u32|--primitive merge --type u32"
  "segsort u32|--primitive segsort --type u32"
  "search u32|--primitive search --type u32"
  "lbs i32|--primitive lbs --type i32"
  "locality u32|--primitive locality --type u32"
  "reduce u32|--primitive reduce --type u32"
  "scan u32|--primitive scan --type u32"
  "expand i32+4|--primitive expand --type i32 --values 4"
  "move i32+4|--primitive move --type i32 --values 4"
  "remove u32|--primitive remove --type u32"
  "insert u32|--primitive insert --type u32"
  "join u32|--primitive join --type u32"
  "setops u32|--primitive setops --type u32"
)
median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f (%.1f..%.1f)", a[int((NR+1)/2)], a[1], a[NR]}'; }
median1() { grep . | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.1f", a[int((NR+1)/2)]; else printf "-"}' || printf -- "-"; }
printf "%-12s %-24s %-9s %-9s %-9s %-8s %s\n" sorter "cold ms (range)" slowest "front" \
  ptxas "disk ms" "memory us"
for c in "${cases[@]}"; do
  name=${c%%|*}
  read -r -a args <<< "${c#*|}"
  cold=() slow=() front=() ptxas=() disk=() memory=()
  for _ in $(seq "$R"); do
    dir=$(mktemp -d)
    out=$(MERGEJIT_CACHE_DIR=$dir "$TOOL" demo --sm "$SM" --n 1000 --reps 0 "${args[@]}")
    line=$(grep '^build:' <<< "$out")
    memory+=("$(sed -n 's/^again: .* in \([0-9.]*\) us.*/\1/p' <<< "$out")")
    cold+=("$(sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' <<< "$line")")
    slow+=("$(sed -n 's/.*slowest \([0-9.]*\) ms.*/\1/p' <<< "$line")")
    front+=("$(sed -n 's/.*front end \([0-9.]*\) ms.*/\1/p' <<< "$line")")
    ptxas+=("$(sed -n 's/.*ptxas \([0-9.]*\) ms.*/\1/p' <<< "$line")")
    line=$(MERGEJIT_CACHE_DIR=$dir "$TOOL" demo --sm "$SM" --n 1000 --reps 0 "${args[@]}" | grep '^build:')
    disk+=("$(sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' <<< "$line")")
    rm -rf "$dir"
  done
  printf "%-12s %-24s %-9s %-9s %-9s %-8s %s\n" "$name" \
    "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${slow[@]}" | median1)" \
    "$(printf '%s\n' "${front[@]}" | median1)" "$(printf '%s\n' "${ptxas[@]}" | median1)" \
    "$(printf '%s\n' "${disk[@]}" | median1)" "$(printf '%s\n' "${memory[@]}" | median1)"
done
