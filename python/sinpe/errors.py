"""SinpeError, the one exception of the package's calls."""

from ._lib import load
from ._types import STATUS_NAMES


class SinpeError(Exception):
    """A sinpe call failed.

    Attributes:
      status   the sinpe_status code (an int: sinpe's own codes lie in
               [-2099, -2001], other negative values are OpenCL error codes);
      name     the status's name without the SINPE_ prefix
               ("INVALID_SHAPE"), or the CL_* name of an OpenCL code;
      message  sinpe_status_string() of the status;
      detail   sinpe_last_error() at the time of the failure, which names
               the offending argument (or holds a program build log).
    """

    def __init__(self, status, detail=""):
        lib = load()
        self.status = int(status)
        self.message = lib.sinpe_status_string(self.status).decode(errors="replace")
        self.name = STATUS_NAMES.get(self.status, self.message)
        self.detail = detail
        text = f"{self.name}: {self.message}"
        if detail:
            text += f": {detail}"
        super().__init__(text)


def last_error():
    """sinpe_last_error() of the calling thread, as str."""
    return load().sinpe_last_error().decode(errors="replace")


def fail(status):
    """Raises SinpeError for status with the thread's sinpe_last_error()."""
    raise SinpeError(status, last_error())
