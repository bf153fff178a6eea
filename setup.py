"""Build the extension fplab._fplab with the project's own CMake build.

setuptools' build_ext runs CMake on this checkout (the library's sources,
compiled as position-independent static libraries, and python/src) in its
build directory, builds the one target fplab_python, and puts the module
beside the package's Python files.  Settings:
  FPLAB_CMAKE          the cmake command (default: cmake)
  FPLAB_BUILD_JOBS     parallel build jobs (default: the CPU count)
  FPLAB_CMAKE_ARGS     extra -D... arguments, space-separated
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "include", "fplab", "fplab.h")) as fp:
        m = re.search(r'#define FPLAB_VERSION "([^"]+)"', fp.read())
    return m.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        cmake = os.environ.get("FPLAB_CMAKE", "cmake")
        if shutil.which(cmake) is None:
            raise RuntimeError("fplab: building the extension needs cmake "
                               "(Debian: apt-get install cmake)")
        tmp = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(tmp, exist_ok=True)
        args = [cmake, "-S", ROOT, "-B", tmp,
                "-DCMAKE_BUILD_TYPE=Release",
                "-DFPLAB_PYTHON=ON", "-DFPLAB_PYTHON_REQUIRED=ON",
                "-DPython3_EXECUTABLE=" + sys.executable,
                "-DBUILD_TESTING=OFF", "-DFPLAB_CUDA=OFF", "-DFPLAB_MPI=OFF",
                "-DFPLAB_MPFR=OFF", "-DFPLAB_CHECK=OFF"]
        args += shlex.split(os.environ.get("FPLAB_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        jobs = os.environ.get("FPLAB_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call([cmake, "--build", tmp, "--target",
                               "fplab_python", "-j", jobs])
        built = os.path.join(tmp, "python", "fplab")
        mods = [f for f in os.listdir(built)
                if f.startswith("_fplab.") and f.endswith(".so")]
        if len(mods) != 1:
            raise RuntimeError("fplab: expected one _fplab*.so in %s, found %r"
                               % (built, mods))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(built, mods[0]), dest)


setup(version=version(),
      ext_modules=[CMakeExtension("fplab._fplab")],
      cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-pip"},
               "egg_info": {"egg_base": "build-pip"}})
