# SPDX-License-Identifier: Apache-2.0
"""python -m mergejit: info and demo run (on a GPU machine the demo sorts and checks; elsewhere
it says what it skipped), and bad arguments give the usage and exit status 2."""
import os
import subprocess
import sys

import pytest

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


# ---------------------------------------------------------------- where NVRTC is found

def _touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return str(path)


def test_nvrtc_candidates_order(tmp_path):
    from mergejit import _lib
    cu13 = _touch(tmp_path / "site" / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    cu12 = _touch(tmp_path / "site2" / "nvidia" / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    cuda_path = _touch(tmp_path / "tk1" / "lib64" / "libnvrtc.so.12")
    cuda_home = _touch(tmp_path / "tk2" / "lib64" / "libnvrtc.so.13")
    _touch(tmp_path / "site3" / "nvidia" / "cu13" / "lib" / "libnvrtc.so.12")  # not cu13's name
    before, after = _lib.nvrtc_candidates(
        {"CUDA_PATH": str(tmp_path / "tk1"), "CUDA_HOME": str(tmp_path / "tk2")},
        [str(tmp_path / "nothing"), str(tmp_path / "site3"), str(tmp_path / "site"),
         str(tmp_path / "site2")])
    assert before == [(cu13, "the nvidia-cuda-nvrtc wheel"), (cu12, "the nvidia-cuda-nvrtc wheel")]
    assert after == [(cuda_path, "$CUDA_PATH"), (cuda_home, "$CUDA_HOME")]
    assert _lib.nvrtc_candidates({}, []) == ([], [])


def _loaded_nvrtc():
    """The file of the NVRTC this process loaded, from /proc/self/maps (None: not loaded)."""
    mergejit.nvrtc_version()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libnvrtc.so"):
                    return os.path.realpath(path)
    except OSError:
        pass
    return None


def test_nvrtc_from_a_wheel_folder_and_overrides(tmp_path):
    real = _loaded_nvrtc()
    if real is None:
        pytest.skip("no NVRTC loaded here to stand in for the wheel's")
    lib = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libnvrtc.so.13").symlink_to(real)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site")] + sys.path))
    env.pop("MERGEJIT_LIBNVRTC", None)
    code = ("import os, mergejit; v = mergejit.nvrtc_version(); "
            "print(v, mergejit.nvrtc_location()[1], os.environ.get('MERGEJIT_LIBNVRTC'))")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    version, rest = r.stdout.split(" ", 1)
    assert int(version) > 0
    assert rest.strip() == "the nvidia-cuda-nvrtc wheel %s" % (lib / "libnvrtc.so.13")
    # MERGEJIT_LIBNVRTC wins over everything, and info says what it could not load.
    env["MERGEJIT_LIBNVRTC"] = str(tmp_path / "no-such-libnvrtc.so")
    r = subprocess.run([sys.executable, "-m", "mergejit", "info"], env=env, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "nvrtc:   not usable (%s, from $MERGEJIT_LIBNVRTC)" % env["MERGEJIT_LIBNVRTC"] \
        in r.stdout, r.stdout


def test_info_says_whether_there_is_a_device():
    r = run("info")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("device 0: ")]
    assert len(line) == 1, r.stdout
    if mergejit.driver_version() == 0:
        assert line[0].startswith("device 0: none: no CUDA driver here"), line
