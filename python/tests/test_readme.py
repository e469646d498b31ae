"""The rotary example of python/README.md runs as written.

The test reads the first indented code block after the README's heading
"Rotary position embeddings (RoPE)" and executes it, so an edit that
breaks the example fails here.  cl.create_some_context() is replaced by
the tests' own context (the device conftest.py picks), and
pyopencl.array.to_device() by a wrapper that keeps a copy of each host
array, so that the rotated q and k can be checked bit for bit against
rotate_host() of their original values at the example's positions.
Skipped only when the README is not beside the tests (an installed copy
of them).
"""

import os

import numpy as np
import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
HEADING = "## Rotary position embeddings (RoPE)"


def example(path, heading):
    """The first indented (4-space) code block after heading, dedented."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert heading in text, f"{path} has no heading {heading!r}"
    block = []
    for line in text.split(heading, 1)[1].split("\n"):
        if line.startswith("    "):
            block.append(line[4:])
        elif block:
            break
    assert block, f"no code block after {heading!r} in {path}"
    return "\n".join(block) + "\n"


def test_rotary_example_runs_as_written(cl_env, monkeypatch):
    if not os.path.exists(README):
        pytest.skip(f"the README is not at {README}")
    cl, cla, ctx, queue, sctx = cl_env
    code = example(README, HEADING)
    sent = {}
    to_device = cla.to_device

    def recording_to_device(q, ary, *args, **kwargs):
        arr = to_device(q, ary, *args, **kwargs)
        sent[id(arr)] = np.array(ary, copy=True)
        return arr

    monkeypatch.setattr(cl, "create_some_context", lambda *a, **kw: ctx)
    monkeypatch.setattr(cla, "to_device", recording_to_device)
    ns = {}
    exec(compile(code, "python/README.md (rotary example)", "exec"), ns)
    q, k, rope = ns["q"], ns["k"], ns["rope"]
    q0, k0 = sent[id(q)], sent[id(k)]
    assert q0.shape[1:] == (32, 128) and k0.shape[1:] == (8, 128)
    want_q, want_k = rope.rotate_host(q0, k0, start=ns["past"])
    assert np.array_equal(q.get().view(np.uint32), want_q.view(np.uint32))
    assert np.array_equal(k.get().view(np.uint32), want_k.view(np.uint32))
    assert not np.array_equal(q.get(), q0)  # rotated, not left as it was
