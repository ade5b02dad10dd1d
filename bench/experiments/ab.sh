#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B of experiment patches on the GPU machine, in one device command, run from the root of a
# main tree (no git needed there):
#
#   bench/experiments/ab.sh OUT ONLY "TESTS" PATCH...
#
# copies the tree under /tmp/ab: main, and main with each PATCH applied by patch -p1 (all of
# them in one tree, "new"; or with AB_EACH=1 each in a tree of its own, "p1", "p2", ...: patches
# that each apply to main alone, measured side by side); builds bench_primitives in every tree
# and TESTS (test_gpu_* names) in the patched ones; runs each test (MJ_TEST_SMALL=1) and
# compute-sanitizer memcheck of the first; then `bench_primitives --only ONLY --reps 5` main
# and each patched tree in turn, twice, printing one line a row: primitive, type, size, case,
# the reference's ms, mergejit's ms, "r" and the ratio. ONLY may list several, comma-separated
# (each runs in its turn). Logs go to OUT, four files whatever the trees (cfg, build, tests,
# bench: a device run brings few files back). Needs Check for the tests
# (.device-debs, as tools/gpu-check unpacks it). AB_ARGS adds arguments to each bench run
# (AB_ARGS="--case u32": half the search bench's minute a run).
set -u
out=${1:?usage: ab.sh OUT ONLY "TESTS" PATCH...}
only=${2:?}
tests=${3-}
shift 3
root=$(pwd)
if [ -d .device-debs ]; then
    mkdir -p /tmp/deps && for f in .device-debs/*.deb; do dpkg -x "$f" /tmp/deps; done
    export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=/tmp/deps
fi
export PATH=$PATH:/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer
rm -rf /tmp/ab && mkdir -p /tmp/ab/main
tar --exclude=./.git --exclude=./build --exclude=./.gpu -cf - . | tar -xf - -C /tmp/ab/main
# make_tree NAME PATCH...: main with the patches applied, as /tmp/ab/NAME, added to $trees.
trees=""
make_tree() {
    local name=$1
    shift
    cp -a /tmp/ab/main /tmp/ab/$name
    for p in "$@"; do
        (cd /tmp/ab/$name && patch -p1 -s < "$root/$p") || { echo "$p does not apply"; exit 1; }
    done
    trees="$trees $name"
}
if [ "${AB_EACH-0}" = 1 ]; then
    k=0
    for p in "$@"; do
        k=$((k + 1))
        make_tree p$k "$p"
        echo "p$k: $p"
    done
else
    make_tree new "$@"
fi
t0=$(date +%s)
jobs=$(( $(nproc) / ($(echo $trees | wc -w) + 1) ))
[ $jobs -ge 1 ] || jobs=1
targets="bench_primitives"
for t in $tests; do targets="$targets $t"; done
for t in main $trees; do
    (cmake -S /tmp/ab/$t -B /tmp/ab/build-$t -DCMAKE_BUILD_TYPE=Release >> "$out/cfg.log" 2>&1
     if [ $t = main ]; then want=bench_primitives; else want=$targets; fi
     cmake --build /tmp/ab/build-$t -j$jobs --target $want >> "$out/build.log" 2>&1
     echo "built $t rc $?") &
done
wait
echo "built in $(( $(date +%s) - t0 )) s"
for tree in $trees; do
    first=1
    for t in $tests; do
        MJ_TEST_SMALL=1 timeout 200 /tmp/ab/build-$tree/tests/$t >> "$out/tests.log" 2>&1
        echo "$tree $t rc $? $(tail -1 "$out/tests.log")"
        if [ $first = 1 ]; then
            first=0
            MJ_TEST_SMALL=1 CK_FORK=no timeout 200 compute-sanitizer --tool memcheck \
                --report-api-errors no --error-exitcode 1 /tmp/ab/build-$tree/tests/$t \
                >> "$out/tests.log" 2>&1
            echo "$tree memcheck $t rc $? $(grep 'ERROR SUMMARY' "$out/tests.log" | tail -1)"
        fi
    done
done
row() {
    grep -E "^[a-z]+ +[a-z0-9_+]+ +2\^" "$1" | awk '{o=$1" "$2" "$3" "$4; n=0;
        for(i=5;i<=NF;i++){ if($i=="ms"){o=o" "$(i-1)}; if($i=="|"){n++; if(n==2) o=o" r "$(i+1)} }
        print o}'
}
for r in 1 2; do
    for o in ${only//,/ }; do
        for t in main $trees; do
            timeout 120 /tmp/ab/build-$t/bench/bench_primitives --only "$o" --reps 5 ${AB_ARGS-} \
                > /tmp/ab/b.log 2>&1
            echo "=== round $r $o $t rc $?"
            row /tmp/ab/b.log
            cat /tmp/ab/b.log >> "$out/bench.log"
        done
    done
done
echo "total $(( $(date +%s) - t0 )) s"
