"""The few OpenCL calls the NumPy path needs, through ctypes.

libsinpe links the OpenCL ICD loader, so it is loaded already; calling it
directly lets host arrays reach the device without PyOpenCL.
"""

import ctypes
import ctypes.util
from ctypes import POINTER, byref, c_int32, c_size_t, c_uint32, c_uint64, c_void_p

from .errors import SinpeError

MEM_READ_WRITE = 1 << 0
MEM_WRITE_ONLY = 1 << 1
MEM_READ_ONLY = 1 << 2
MEM_COPY_HOST_PTR = 1 << 5

_cl = None


def _load():
    global _cl
    if _cl is None:
        try:
            lib = ctypes.CDLL("libOpenCL.so.1")
        except OSError:
            lib = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so")
        lib.clCreateBuffer.restype = c_void_p
        lib.clCreateBuffer.argtypes = [c_void_p, c_uint64, c_size_t, c_void_p, POINTER(c_int32)]
        lib.clEnqueueReadBuffer.restype = c_int32
        lib.clEnqueueReadBuffer.argtypes = [c_void_p, c_void_p, c_uint32, c_size_t, c_size_t,
                                            c_void_p, c_uint32, c_void_p, c_void_p]
        for name in ("clReleaseMemObject", "clFinish", "clReleaseEvent"):
            getattr(lib, name).restype = c_int32
            getattr(lib, name).argtypes = [c_void_p]
        lib.clWaitForEvents.restype = c_int32
        lib.clWaitForEvents.argtypes = [c_uint32, c_void_p]
        _cl = lib
    return _cl


def _check(err, what):
    if err:
        raise SinpeError(err, f"{what} failed")


def create_buffer(context, nbytes, flags, host=None):
    """A cl_mem of nbytes (a copy of the host array when host is given)."""
    err = c_int32(0)
    ptr = host.ctypes.data if host is not None else None
    mem = _load().clCreateBuffer(context, flags, nbytes, ptr, byref(err))
    _check(err.value, "clCreateBuffer")
    return mem


def upload(context, array):
    """A read-only cl_mem holding a copy of a contiguous host array."""
    return create_buffer(context, max(array.nbytes, 1),
                         MEM_READ_ONLY | (MEM_COPY_HOST_PTR if array.nbytes else 0),
                         array if array.nbytes else None)


def read(queue, mem, array):
    """Blocking read of array.nbytes bytes from the start of mem."""
    _check(_load().clEnqueueReadBuffer(queue, mem, 1, 0, array.nbytes, array.ctypes.data,
                                       0, None, None), "clEnqueueReadBuffer")


def release(mem):
    if mem:
        _load().clReleaseMemObject(mem)


def finish(queue):
    _check(_load().clFinish(queue), "clFinish")


def wait(event):
    """Waits for a raw cl_event and releases it."""
    ev = c_void_p(event)
    try:
        _check(_load().clWaitForEvents(1, byref(ev)), "clWaitForEvents")
    finally:
        _load().clReleaseEvent(event)
