"""Finding and loading libsinpe, once, with every prototype declared.

The library is the file named by the environment variable SINPE_LIBRARY
when that is set; else the libsinpe.so that "pip install" built into this
package, when it is there; else what ctypes.util.find_library("sinpe") finds; else
libsinpe.so.<major> through the dynamic loader's own search (what
"make install" puts in PREFIX/lib).  A library of another major version,
or older than the structs this package mirrors, is refused.
"""

import ctypes
import ctypes.util
import os
import threading

from ._api import CTYPES, FUNCTIONS
from ._types import CONSTANTS

MAJOR = CONSTANTS["SINPE_VERSION_MAJOR"]
MINOR = CONSTANTS["SINPE_VERSION_MINOR"]  # the oldest library with these structs
# Where setup.py puts the library it builds.
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libsinpe.so")

_lock = threading.Lock()
_lib = None


def _open(name):
    lib = ctypes.CDLL(name)
    for fname, restype, argtypes in FUNCTIONS:
        try:
            fn = getattr(lib, fname)
        except AttributeError:
            # An older build of the same major version: what it lacks
            # raises AttributeError when called, the rest works.
            continue
        fn.restype = CTYPES[restype]
        fn.argtypes = [CTYPES[t] for t in argtypes]
    version = lib.sinpe_version_number()
    if version // 10000 != MAJOR or version < MAJOR * 10000 + MINOR * 100:
        raise OSError(f"{name} is libsinpe {lib.sinpe_version_string().decode()}; "
                      f"this package needs {MAJOR}.{MINOR} or a later {MAJOR}.x")
    return lib


def load():
    """The loaded library (a ctypes.CDLL with every prototype set).

    Raises OSError, naming what was tried, when no usable library is found.
    """
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            path = os.environ.get("SINPE_LIBRARY")
            if path:
                candidates = [path]
            elif os.path.exists(BUNDLED):
                candidates = [BUNDLED]
            else:
                found = ctypes.util.find_library("sinpe")
                candidates = ([found] if found else []) + [f"libsinpe.so.{MAJOR}"]
            errors = []
            for name in candidates:
                try:
                    _lib = _open(name)
                    break
                except OSError as e:
                    errors.append(f"{name}: {e}")
            else:
                raise OSError(
                    "sinpe: cannot load libsinpe (" + "; ".join(errors) + "). Install "
                    "the package with pip from the repository's root (it builds the "
                    "library into the package), or set SINPE_LIBRARY to the path of "
                    "libsinpe.so, or install the library (make install) where the "
                    "dynamic loader finds it.")
    return _lib
