"""The virtual nest board: MicroPython's VM behind a pseudo-terminal, with simulated hardware.

`with VirtualBoard() as board:` -> `board.port` (open it like a USB serial port) and
`board.control` (ControlClient of the JSON-lines control channel). See docs/virtual-board.md.
"""

from nest.vboard.control import ControlClient
from nest.vboard.launcher import VirtualBoard, bench_calibration

__all__ = ["ControlClient", "VirtualBoard", "bench_calibration"]
