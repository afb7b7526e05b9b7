"""Bounds for JSON from outside (a log file, a page's WebSocket message, a control line): how
deep its brackets nest, counted before json.loads, whose parser recurses once per level (CPython
raises RecursionError past ~1,000 levels; deeper input should be refused with a reason instead)."""

MAX_DEPTH = 32  # the deepest the project's own JSON goes is 3 (a log's set-up: its path list)


def nesting_depth(text, limit=MAX_DEPTH):
    """How deep the brackets of a JSON text nest (strings skipped), counting only up to limit + 1."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest
