# SPDX-License-Identifier: Apache-2.0
"""The scripts of examples/python, run as a user runs them (a new python3 process, this suite's
library and package): each must exit 0, having sorted and checked on the GPU or, without one
(or without CuPy or PyTorch), having run its CPU checks and said what it skipped."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "python")


@pytest.mark.parametrize("script", ["cupy_sort.py", "torch_sort.py"])
def test_example_runs(script, cache_dir):
    env = dict(os.environ, MERGEJIT_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), "100000"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout
    assert "struct record" in r.stdout, r.stdout                    # the CPU part ran
    assert "sorted 100000" in r.stdout or "skipped: the GPU sorts" in r.stdout, r.stdout


def test_example_refuses_a_bad_size():
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "cupy_sort.py"), "0"],
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode != 0 and "usage" in r.stdout
