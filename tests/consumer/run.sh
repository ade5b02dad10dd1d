#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed package, used as a user would: installs the build into a fresh prefix under
# WORK_DIR, moves that prefix (so that nothing may point at where it was installed), then builds
# consumer.c against it twice, with CMake's find_package(mergejit) (CMakeLists.txt beside this
# file) and with `pkg-config --cflags --libs mergejit` and the C compiler, and runs each program;
# then builds examples/c and examples/deploy against it and runs them.
# Nothing outside BUILD_DIR and WORK_DIR is read for mergejit: pkg-config sees only the prefix.
#
# usage: run.sh BUILD_DIR WORK_DIR CONFIG CMAKE GENERATOR C_COMPILER INSTALL_DIRS [C_FLAGS]
#   (registered in ctest by tests/CMakeLists.txt; INSTALL_DIRS: the build's CMAKE_INSTALL_BINDIR,
#   LIBDIR and INCLUDEDIR, blank-separated; C_FLAGS: the build's, e.g. sanitizers)
set -euo pipefail

[ $# -ge 7 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
build=$1 work=$2 config=$3 cmake=$4 generator=$5 cc=$6 dirs=$7 cflags=${8:-}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

step() { echo "consumer: $*"; }
fail() { echo "consumer: FAILED: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix

# An absolute install dir lies outside any prefix given to `cmake --install`: installing would
# write there, outside the build tree.
for d in $dirs; do
    case $d in
        /*) echo "consumer: skipped: install dir $d is absolute, outside the prefix"; exit 77 ;;
    esac
done

step "cmake --install $build --prefix $work/staged, then moved to $prefix"
"$cmake" --install "$build" --prefix "$work/staged" --config "$config" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "install"; }
mv "$work/staged" "$prefix"
for f in LICENSE NOTICE; do
    [ -n "$(find "$prefix" -path "*/doc/mergejit/$f" -type f)" ] || fail "no doc/mergejit/$f under $prefix"
done

# find_package: the shared and the static library.
step "find_package(mergejit) with CMAKE_PREFIX_PATH=$prefix"
gen=()
[ -n "$generator" ] && gen=(-G "$generator")
"$cmake" -S "$src" -B "$work/cmake" "${gen[@]}" -DCMAKE_BUILD_TYPE="$config" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; fail "configuring the find_package consumer"; }
found=$(sed -n 's/^mergejit_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
case $(realpath "$found") in
    "$(realpath "$prefix")"/*) step "found $found" ;;
    *) fail "find_package found mergejit in '$found', not under $prefix" ;;
esac
"$cmake" --build "$work/cmake" --config "$config" >>"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; fail "building the find_package consumer"; }
for exe in consumer_shared consumer_static; do
    bin=$(find "$work/cmake" -name "$exe" -type f -perm -u+x | head -n1)
    [ -n "$bin" ] || fail "no $exe built"
    step "running $exe"
    "$bin" || fail "$exe exited $?"
done

# pkg-config: only the installed .pc, no sysroot (tools/gpu-check sets one for Check).
pcdir=$(dirname "$(find "$prefix" -name mergejit.pc | head -n1)")
[ -f "$pcdir/mergejit.pc" ] || fail "no mergejit.pc under $prefix"
pc() { env -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$pcdir" pkg-config "$@"; }
pcprefix=$(pc --variable=prefix mergejit) || fail "pkg-config cannot read $pcdir/mergejit.pc"
[ "$(realpath "$pcprefix")" = "$(realpath "$prefix")" ] ||
    fail "mergejit.pc says prefix=$pcprefix, but it is installed in $prefix"
flags=$(pc --cflags --libs mergejit)
step "$cc consumer.c $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" $cflags "$src/consumer.c" $flags -o "$work/consumer_pc" || fail "compiling with pkg-config's flags"
step "running consumer_pc"
LD_LIBRARY_PATH=$(pc --variable=libdir mergejit)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$work/consumer_pc" || fail "consumer_pc exited $?"

# The examples, as a user builds them against the prefix: examples/c (u32 keys and a struct with
# a comparator) and examples/deploy (deploy.sh: tune where there is a GPU, gen a bundle, sort
# from it with NVRTC out of reach). Without a GPU sort_example exits 77 and says so, and
# sort_from_bundle builds its sorter from the bundle in a compile-only context.
examples=$(cd "$src/../../examples" && pwd)
export MERGEJIT_CACHE_DIR=$work/cache # not the user's cache
example_build() { # folder: 0 built, 1 no CUDA runtime library to link (said why)
    local out=$work/example-$1
    step "examples/$1 with find_package(mergejit) and find_package(CUDAToolkit)"
    if ! "$cmake" -S "$examples/$1" -B "$out" "${gen[@]}" -DCMAKE_BUILD_TYPE="$config" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$out.log" 2>&1; then
        if grep -q 'Could NOT find CUDAToolkit' "$out.log"; then
            step "examples/$1 not built: CMake finds no CUDA toolkit with its runtime library"
            return 1
        fi
        cat "$out.log" >&2
        fail "configuring examples/$1"
    fi
    "$cmake" --build "$out" --config "$config" >>"$out.log" 2>&1 ||
        { cat "$out.log" >&2; fail "building examples/$1"; }
}
built() { find "$work/example-$1" -name "$2" -type f -perm -u+x | head -n1; }
if example_build c; then
    step "running sort_example 100000"
    rc=0
    "$(built c sort_example)" 100000 >"$work/sort_example.log" 2>&1 || rc=$?
    cat "$work/sort_example.log"
    case $rc in
        0) ;;
        77) grep -q "no GPU here" "$work/sort_example.log" || fail "sort_example exited 77 without saying why" ;;
        *) fail "sort_example exited $rc" ;;
    esac
    step "running multi_process_sort as one rank of one"
    rc=0
    "$(built c multi_process_sort)" 0 1 "$work/mj.id" 100000 >"$work/multi.log" 2>&1 || rc=$?
    cat "$work/multi.log"
    case $rc in
        0) grep -q "sorted and after" "$work/multi.log" || fail "multi_process_sort said nothing" ;;
        77) grep -q "no GPU here\|NCCL\|MJ_ERR_NO_D" "$work/multi.log" ||
            fail "multi_process_sort exited 77 without saying why" ;;
        *) fail "multi_process_sort exited $rc" ;;
    esac
fi
if example_build deploy; then
    tool=$(find "$prefix" -path "*/bin/mergejit" -type f | head -n1)
    [ -n "$tool" ] || fail "no bin/mergejit under $prefix"
    step "examples/deploy/deploy.sh with $tool"
    bash "$examples/deploy/deploy.sh" "$work/deploy" "$tool" "$(built deploy sort_from_bundle)" ||
        fail "deploy.sh exited $?"
fi
step "passed: find_package (shared, static), pkg-config and the examples"
