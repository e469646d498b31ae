"""The build step of the Python package: the C library, built by the
Makefile, goes inside the package as sinpe/libsinpe.so, where
python/sinpe/_lib.py looks first.  Everything else is in pyproject.toml.

The library is built in build/python/c with the Makefile's own rules (so a
clean clone or an unpacked sdist builds as "make" does) and CFLAGS from the
environment, else "-O2 -Wall -Wextra": the project's -Werror stays with
"make", so that a compiler newer than the project's does not stop an
install.  The wheel is tagged py3-none-<platform>: it holds no Python
extension, only a library that ctypes loads, so one wheel serves every
Python 3 on a platform.
"""

import os
import re
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools 70.1 and later
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # older setuptools, with the wheel package
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join("build", "python")


def header_version():
    """MAJOR.MINOR.PATCH from include/sinpe.h, the one place it is written."""
    with open(os.path.join(ROOT, "include", "sinpe.h")) as f:
        parts = dict(re.findall(r"^#define SINPE_VERSION_(MAJOR|MINOR|PATCH) (\d+)$",
                                f.read(), re.M))
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


def make_library():
    """Runs make for the shared library; returns the path of the file."""
    out = os.path.join(BUILD, "c")
    link = os.path.join(out, "libsinpe.so")
    # A make that runs pip passes its own command-line variables (BUILD=...)
    # down through MAKEFLAGS; this build takes none of them.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    cmd = ["make", f"-j{jobs}", f"BUILD={out}",
           "CFLAGS=" + os.environ.get("CFLAGS", "-O2 -Wall -Wextra"), link]
    print(" ".join(cmd), flush=True)
    try:
        subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            f"sinpe: building libsinpe failed ({e}). It needs a C compiler, make, "
            "pkg-config and the OpenCL headers and ICD loader: on Debian or Ubuntu, "
            "'sh scripts/install-deps.sh' installs them.") from e
    return os.path.realpath(os.path.join(ROOT, link))


class build_py_with_library(build_py):
    """build_py, then the library into the built package."""

    def run(self):
        super().run()
        if not self.dry_run:
            self.copy_file(make_library(), os.path.join(self.build_lib, "sinpe", "libsinpe.so"))


class BinaryDistribution(Distribution):
    """A distribution with a binary part: installed into platlib, and its
    wheel is not pure."""

    def has_ext_modules(self):
        return True


class bdist_wheel_platform(bdist_wheel):
    """A wheel for one platform, any Python 3."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


# setuptools writes its own files (the egg-info too) under build/python,
# beside the Makefile's, rather than into the source tree.
os.makedirs(os.path.join(ROOT, BUILD), exist_ok=True)
setup(
    version=header_version(),
    distclass=BinaryDistribution,
    cmdclass={"build_py": build_py_with_library, "bdist_wheel": bdist_wheel_platform},
    options={"build": {"build_base": BUILD}, "egg_info": {"egg_base": BUILD}},
)
