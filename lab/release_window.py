"""A button let go while the nest boots, then pressed in the pick phase: is the press read? The
sweep that reproduced CI's "Reveal held 30 s, no word" (stop 43): Reveal held through a power
cut and let go at instants 0-198 ms after the board is back, in 2 ms steps. With the debouncer
that did not poll once when its IRQ was armed (`--planted`), a release that fell between the
app's start-up read and the arming made the next press count for nothing.

    .venv/bin/python -m lab.release_window             # the firmware as it is: every press read
    .venv/bin/python -m lab.release_window --planted   # the arming's poll taken out: a press lost

About 2 minutes; it stops at the first lost press."""

import argparse
import tempfile
import time
from pathlib import Path

from testkit.boardkit import BUTTONS, Rebooted, booted_nest, planted_firmware

STEPS_MS = range(0, 200, 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--planted", action="store_true", help="the debouncer without its poll at arming")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="release-window-"))
    kw = {}
    if args.planted:
        kw["firmware"] = planted_firmware(tmp / "fw", "debounce.py", "        self.irq()\n", "")
    reveal = BUTTONS["reveal"]
    with booted_nest(tmp / "flash", log_path=tmp / "vboard.log", **kw) as nest:
        nest.new(2, "standard", 3)
        for ms in STEPS_MS:
            nest.wait_phase("pick")
            with nest.boot_raises():
                nest.ctl.power_cut(off_ms=300)
                nest.ctl.press(reveal)              # held while the board is off and boots
                time.sleep(0.3 + ms / 1000)
                nest.ctl.release(reveal)
                try:
                    nest.wait(lambda ev: False, 10)
                except Rebooted:
                    pass
            nest.drain(0.3)
            try:
                nest.pick("reveal")
            except AssertionError as e:
                print(f"let go {ms} ms after power-on: the next press was lost ({str(e)[:160]})")
                return 1
            nest.new(2, "standard", 3)
    print(f"every press read ({len(STEPS_MS)} releases, 0-{STEPS_MS[-1]} ms after power-on)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
