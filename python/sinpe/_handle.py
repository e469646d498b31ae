"""The lifetime of an object that owns one reference to a sinpe handle."""


class Handle:
    """Subclasses set self._ptr (the handle) and self._release (its
    sinpe_*_release function)."""

    def release(self):
        """Drops this object's reference (sinpe_context_release() or
        sinpe_table_release()); idempotent."""
        ptr, self._ptr = self._ptr, None
        if ptr:
            self._release(ptr)

    close = release

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass
