"""python3 -m fplab: the version the command prints, the presets and the
schemes; and the package imports without torch."""
import os
import subprocess
import sys

import fplab


def pym(*args):
    return subprocess.run([sys.executable, "-m", "fplab"] + list(args),
                          capture_output=True, text=True, env=dict(os.environ))


def test_version_equals_the_command(cli):
    r = pym("--version")
    assert r.returncode == 0 and r.stdout == cli("--version").stdout
    assert r.stdout == "fplab %s\n" % fplab.__version__


def test_lists_and_usage():
    assert pym("--formats").stdout.split() == fplab.formats()
    assert pym("--schemes").stdout.split() == fplab.schemes()
    bad = pym("--bogus")
    assert bad.returncode == 2 and "usage: python3 -m fplab" in bad.stderr


def test_imports_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import numpy as np, fplab\n"
            "print(float(fplab.round(np.float32([0.1]), 'bf16')[0]))\n"
            "try:\n    import fplab.torch\nexcept ImportError:\n    print('no torch')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "0.10009765625\nno torch\n"
