"""Shared fixtures: the seed, one sinpe context per test module (a context
costs about two seconds on PoCL), and the PyOpenCL context beside it.

The tests run on the device that SINPE_DEVICE selects, else PoCL (the
"Portable Computing Language" platform), so that no GPU is needed.
Random inputs come from SINPE_TEST_SEED, else a fresh seed; it is printed
in the report header and with every failing test.
"""

import os
import random
import zlib

import numpy as np
import pytest

import sinpe

SEED = int(os.environ.get("SINPE_TEST_SEED") or random.SystemRandom().randrange(1 << 31))
DEVICE = os.environ.get("SINPE_DEVICE") or "portable"


def _seed_line():
    return (f"sinpe tests: seed {SEED} (SINPE_TEST_SEED={SEED} repeats this run), "
            f"library {sinpe.version()}, device selector {DEVICE!r}")


def pytest_report_header(config):
    return [_seed_line()]


def pytest_terminal_summary(terminalreporter):
    # Also under -q, which hides the header.
    terminalreporter.write_line(_seed_line())


@pytest.fixture
def rng(request):
    """A generator seeded from SEED and the test's name, printed."""
    seed = (SEED + zlib.crc32(request.node.nodeid.encode())) % (1 << 32)
    print(f"seed {SEED} (this test's stream: {seed})")
    return np.random.default_rng(seed)


@pytest.fixture(scope="module")
def host_ctx():
    """A context of sinpe's own, no PyOpenCL involved."""
    ctx = sinpe.Context(device=DEVICE)
    yield ctx
    ctx.release()


def _cl_device(cl):
    want = DEVICE.lower()
    for platform in cl.get_platforms():
        for dev in platform.get_devices():
            if want in platform.name.lower() or want in dev.name.lower():
                return dev
    pytest.skip(f"no OpenCL device matches {DEVICE!r}")


@pytest.fixture(scope="module")
def cl_env():
    """(pyopencl, pyopencl.array, cl context, queue, sinpe.Context)."""
    cl = pytest.importorskip("pyopencl")
    import pyopencl.array as cla
    dev = _cl_device(cl)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    sctx = sinpe.Context(ctx)
    yield cl, cla, ctx, queue, sctx
    sctx.release()

