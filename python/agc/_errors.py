"""The one exception type the package raises for compiler and library failures."""


class Error(Exception):
    """A failed `agc build`, or a non-zero status from a compiled library.

    `message` is the compiler's stderr or the library's `<NAME>_last_error()`;
    `status` is the compiler's exit code or the library's status, when known.
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


Error.__module__ = "agc"  # shown as agc.Error in tracebacks
