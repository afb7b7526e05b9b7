"""The one error type the user sees: printed as `nest: message`, non-zero exit, no traceback."""


class NestError(Exception):
    """An expected failure with a message meant for the user.

    `status` is the process exit status; 2 is kept for bad input (a malformed file or argument),
    1 for everything else.
    """

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status
