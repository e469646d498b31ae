"""PyOpenCL objects -> OpenCL handles, without importing PyOpenCL.

Memory arguments may be a pyopencl.array.Array (its base buffer, its
offset in bytes and its dtype and shape are used), a pyopencl.Buffer (or
any object with an int_ptr), a raw cl_mem as an int, or None.  Events come
back as pyopencl.Event when the queue is a PyOpenCL object, as raw cl_event
ints (the caller's to release) when it is an int.
"""

import sys
from ctypes import byref, c_void_p

from .errors import fail

_from_int_ptr = None


def mem(obj, what):
    """(handle, byte offset, Array or None) of a memory argument."""
    try:
        base = obj.base_data
    except AttributeError:
        pass
    else:
        return (base.int_ptr if base is not None else None), obj.offset, obj
    try:
        return obj.int_ptr, 0, None
    except AttributeError:
        pass
    if obj is None or isinstance(obj, int):
        return obj, 0, None
    raise TypeError(f"{what}: expected a pyopencl.array.Array, a pyopencl.Buffer, a cl_mem "
                    f"handle (int) or None, not {type(obj).__name__}")


def handle(obj, what):
    """The handle of a queue, context or device: a PyOpenCL object or an int."""
    try:
        return obj.int_ptr
    except AttributeError:
        if obj is None or isinstance(obj, int):
            return obj
    raise TypeError(f"{what}: expected a PyOpenCL object or an int handle, "
                    f"not {type(obj).__name__}")


def wait_list(events):
    """(count, array) for a wait list of pyopencl.Event objects or ints."""
    if not events:
        return 0, None
    n = len(events)
    return n, (c_void_p * n)(*[e if isinstance(e, int) else e.int_ptr for e in events])


def event(queue, ptr):
    """The event a call produced, in the kind of its queue."""
    global _from_int_ptr
    if isinstance(queue, int):
        return ptr
    if _from_int_ptr is None:
        cl = sys.modules.get("pyopencl")
        if cl is None:
            import pyopencl as cl
        _from_int_ptr = cl.Event.from_int_ptr
    return _from_int_ptr(ptr, False)


def pyopencl():
    """The pyopencl module, imported on first use."""
    import pyopencl as cl
    return cl


def enqueue(queue, wait_for, want_event, call):
    """Runs call(count, wait_list, event_out), a sinpe enqueue whose last
    arguments are those, and raises SinpeError on its status.  Returns the
    call's event in the kind of queue (see event()), or None without
    want_event."""
    n, wl = wait_list(wait_for)
    if not want_event:
        st = call(n, wl, None)
        if st:
            fail(st)
        return None
    ev = c_void_p()
    st = call(n, wl, byref(ev))
    if st:
        fail(st)
    return event(queue, ev.value)
