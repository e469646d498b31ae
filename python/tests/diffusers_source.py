"""diffusers' own functions and classes for the tests, read from the
installed release's files (never imported: its package imports what this
machine may lack), optionally in the float64 transform of test_rope_hf.py.
Importing this module skips the importing test module when torch or
diffusers is missing (make check-python installs the release it pins)."""

import ast
import importlib.util
import math
import os
import re
import typing

import numpy as np
import pytest

try:
    import torch
except Exception as e:  # noqa: BLE001
    pytest.skip(f"torch cannot be imported ({e})", allow_module_level=True)
SPEC = importlib.util.find_spec("diffusers")
if SPEC is None:
    pytest.skip("diffusers is not installed (make check-python installs the release it pins)",
                allow_module_level=True)
ROOT = os.path.dirname(SPEC.origin)


def float64_source(text):
    text = text.replace(".float()", ".double()")
    return re.sub(r"torch\.float(?:32)?(?![\w])", "torch.float64", text)


def load(relpath, names, ns=None, f64=True):
    """The named top-level functions and classes of a diffusers file (and,
    as "Class.method", methods as plain functions) executed into ns."""
    path = os.path.join(ROOT, relpath)
    with open(path) as f:
        text = f.read()
    if ns is None:
        ns = {"torch": torch, "nn": torch.nn, "np": np, "math": math,
              "deprecate": lambda *a, **k: None, **vars(typing)}
    found = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            found[node.name] = ast.get_source_segment(text, node)
        for fn in getattr(node, "body", []) if isinstance(node, ast.ClassDef) else []:
            key = f"{node.name}.{fn.name}" if isinstance(fn, ast.FunctionDef) else None
            if key in names:
                seg = " " * fn.col_offset + ast.get_source_segment(text, fn)
                found[key] = "\n".join(line[fn.col_offset:] for line in seg.splitlines())
    assert set(found) == set(names), f"{relpath} lacks {set(names) - set(found)}"
    src = "\n\n".join(found[n] for n in names)
    exec(compile(float64_source(src) if f64 else src, path, "exec"), ns)
    return ns
