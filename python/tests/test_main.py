# SPDX-License-Identifier: Apache-2.0
"""python -m mergejit: info and demo run (on a GPU machine the demo sorts and checks; elsewhere
it says what it skipped), and bad arguments give the usage and exit status 2."""
import os
import subprocess
import sys

import mergejit


def run(*args):
    return subprocess.run([sys.executable, "-m", "mergejit", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=600)


def test_info():
    r = run("info")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("mergejit %s (" % mergejit.__version__)
    assert "nvrtc:" in r.stdout and "device 0:" in r.stdout


def test_demo():
    r = run("demo", "5000")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skipped:" in r.stdout or "match numpy" in r.stdout


def test_usage():
    assert run().returncode == 2
    for args in (("demo", "-3"), ("demo", "x"), ("sort",), ("info", "more")):
        r = run(*args)
        assert r.returncode == 2 and "usage: python -m mergejit" in r.stderr, args
    assert run("--help").returncode == 0
