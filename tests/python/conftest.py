"""Shared pieces of the Python package's tests (pytest).

- The seed: FPLAB_TEST_SEED when set, else 1; printed in the header and
  the summary (FPLAB_TEST_SEED=S replays a run).
- Counted cases: every comparison of one element, one file or one call
  adds to `cases` (fixture); a test asserts its own count, so a loop that
  never runs fails, and the summary prints the total.
- The command under test: FPLAB_EXE (set by CTest), else build/fplab of
  this checkout; tests that compare with the CLI skip without one.
"""
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = int(os.environ.get("FPLAB_TEST_SEED", "1"), 0)
_total = [0]


class Cases:
    """A counter of checked cases for one test."""

    def __init__(self):
        self.n = 0

    def add(self, k=1):
        self.n += k
        _total[0] += k
        return self.n


@pytest.fixture
def cases():
    return Cases()


@pytest.fixture
def rng(request):
    # one stream per test, from the seed and the test's name
    h = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.name)) % (1 << 31)
    return np.random.default_rng([SEED, h])


def fplab_exe():
    exe = os.environ.get("FPLAB_EXE") or os.path.join(ROOT, "build", "fplab")
    return exe if os.path.isfile(exe) and os.access(exe, os.X_OK) else None


@pytest.fixture
def cli():
    exe = fplab_exe()
    if exe is None:
        pytest.skip("no fplab command (FPLAB_EXE or build/fplab)")

    def run(*args, check=True, cwd=None):
        r = subprocess.run([exe] + [str(a) for a in args], capture_output=True,
                           text=True, cwd=cwd)
        if check and r.returncode not in (0, 1):
            raise AssertionError("fplab %s: exit %d\n%s" % (
                " ".join(map(str, args)), r.returncode, r.stderr))
        return r
    return run


def pytest_report_header(config):
    return "fplab tests: seed %d (replay with FPLAB_TEST_SEED=%d)" % (SEED, SEED)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("fplab: %d cases checked, seed %d (replay with "
                                "FPLAB_TEST_SEED=%d)" % (_total[0], SEED, SEED))
