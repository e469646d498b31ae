"""diffusers' own functions and classes for the tests, read from the
installed release's files (framework_source.py), optionally in float64.
Importing this module skips the importing test module when torch or
diffusers is missing (make check-python installs the release it pins)."""

import importlib.util
import math
import os
import typing

import numpy as np
import pytest

from framework_source import load_source

try:
    import torch
except Exception as e:  # noqa: BLE001
    pytest.skip(f"torch cannot be imported ({e})", allow_module_level=True)
SPEC = importlib.util.find_spec("diffusers")
if SPEC is None:
    pytest.skip("diffusers is not installed (make check-python installs the release it pins)",
                allow_module_level=True)
ROOT = os.path.dirname(SPEC.origin)


def load(relpath, names, ns=None, f64=True):
    """framework_source.load_source on a file of the installed diffusers."""
    if ns is None:
        ns = {"torch": torch, "nn": torch.nn, "np": np, "math": math,
              "deprecate": lambda *a, **k: None,
              **{k: v for k, v in vars(typing).items() if not k.startswith("_")}}
    return load_source(os.path.join(ROOT, relpath), names, ns, f64)
