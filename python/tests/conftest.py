# SPDX-License-Identifier: Apache-2.0
"""Fixtures: a compile-only context (CPU tests: NVRTC, no driver), and the GPU context, whose
tests skip where mergejit finds no driver or no device."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mergejit  # noqa: E402


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    # ctest gives each test its own MERGEJIT_CACHE_DIR; elsewhere a fresh one per session.
    return os.environ.get("MERGEJIT_CACHE_DIR") or str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def compile_ctx(cache_dir):
    if mergejit.nvrtc_version() == 0:
        pytest.skip("libnvrtc not found: compile-only tests need NVRTC")
    with mergejit.Context(compile_only=True, target_sm=90, cache_dir=cache_dir,
                          tuning_file="") as ctx:
        yield ctx


@pytest.fixture(scope="session")
def gpu(cache_dir):
    """The GPU context (device 0); skips the test without a driver or device."""
    try:
        ctx = mergejit.Context(0, cache_dir=cache_dir)
    except (mergejit.NoDriverError, mergejit.NoDeviceError) as e:
        pytest.skip("no GPU: %s" % e.message)
    yield ctx
    import holders
    holders.cuda().sync()
    ctx.close()
