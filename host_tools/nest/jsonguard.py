"""Bounds for JSON from outside (a log file, a page's WebSocket message): how deep its brackets
nest, counted before json.loads, whose parser recurses once per level (CPython raises
RecursionError past ~1,000 levels; deeper input is refused with a reason instead). The scan is the
firmware console's own (gulo.console.shape), which also counts a line's members."""

from gulo.console import shape

MAX_DEPTH = 32  # the deepest the project's own JSON goes is 3 (a log's set-up: its path list)


def nesting_depth(text):
    """How deep the brackets of a JSON text nest (strings skipped)."""
    return shape(text)[1]
