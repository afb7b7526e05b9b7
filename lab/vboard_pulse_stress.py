"""How often a host hiccup powers the virtual board's HX711 down in the middle of a readout.

Default: starts a virtual board (ESP32 timing unless --timing host), reads the HX711 N times at rest
with a bit-banged driver as boards use it (interrupts off around each pulse), and prints, from the
chip model's own view: the pulses whose SCK-high time would power the chip down, the readouts
whose bits came out garbled (all ones from a power-down in the first 4 bits on: the low 20 bits
set), and a histogram of the pulses' board time high. A correct driver on a quiet ESP32 never
powers the chip down, so every power-down counted here is the host's doing.

--hiccups S: for S seconds, a loop in Node that does nothing but read the clocks the virtual board
reads (wall clock, this thread's run-queue wait, V8's heap) prints how often this thread was stopped
for more than 100 us in a way no process can see (not waiting for a CPU, not collecting garbage):
the noise that the board clock multiplies by its factor (docs/virtual-board.md, "HX711 clock
pulses").

    .venv/bin/python -m lab.vboard_pulse_stress --readouts 5000
    .venv/bin/python -m lab.vboard_pulse_stress --hiccups 10
    .venv/bin/python -m lab.vboard_pulse_stress --readouts 40 --power-down-us 1   # planted
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from nest.vboard.hx711_driver import hx711_driver  # noqa: E402
from nest.vboard.launcher import VirtualBoard  # noqa: E402

# Runs on the board after the driver (nest.vboard.hx711_driver). The model's write_sck is wrapped
# (inside the pin shim, so on ESP32 timing the wrapper's own time is not board time) to see each
# pulse's high time as the model judges it.
READOUTS = """
import json, _vbhw, _vbjs
hx = _vbhw.hx711
write_sck = hx.write_sck
hist, downs = {{}}, []
def wrapped(v):
    if not v and hx.sck:
        us = _vbjs.sck_high_us()
        b = 0
        while (1 << b) < us:
            b += 1
        hist[b] = hist.get(b, 0) + 1
        if hx._held_too_long():
            downs.append(us)
    write_sck(v)
hx.write_sck = wrapped
garbled = 0
t = time.ticks_ms()
for n in range({n}):
    if hx_read() & 0xFFFFF == 0xFFFFF:
        garbled += 1
hx.write_sck = write_sck
print(json.dumps({{"readouts": {n}, "power_downs": len(downs), "longest_us": downs[:20],
                  "garbled": garbled, "ms": time.ticks_diff(time.ticks_ms(), t),
                  "high_us_log2": sorted(hist.items())}}))
"""

# Runs in Node: the virtual board's own clock sources (timing.mjs, hostClocks), read in a loop.
HICCUPS = """
const {{ hostClocks }} = await import({url!r});
const c = hostClocks(), end = c.wallUs() + {s} * 1e6, hist = {{}};
let wall = c.wallUs(), waited = c.waitedUs(), heap = c.heapBytes(), passes = 0, gcs = 0;
while (wall < end) {{
  const w = c.wallUs(), q = c.waitedUs(), h = c.heapBytes(), ran = (w - wall) - (q - waited);
  if (h < heap) gcs++;
  else if (ran > 100) {{ const b = Math.ceil(Math.log2(ran)); hist[b] = (hist[b] || 0) + 1; }}
  wall = w; waited = q; heap = h; passes++;
}}
console.log(JSON.stringify({{ seconds: {s}, passes, gc_steps: gcs, stopped_us_log2: hist }}));
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--readouts", type=int, default=5000)
    ap.add_argument("--timing", choices=("esp32", "host"), default="esp32")
    ap.add_argument("--hiccups", type=float, metavar="S", help="measure the host's unseen stops instead")
    ap.add_argument("--power-down-us", type=int, metavar="US",
                    help="a planted chip: powers down past US us of any kind (the count must see it)")
    args = ap.parse_args()
    if args.hiccups:
        s = int(args.hiccups)
        url = (ROOT / "host_tools" / "nest" / "vboard" / "timing.mjs").as_uri()
        out = subprocess.run(["node", "--input-type=module", "-e", HICCUPS.format(url=url, s=s)],
                             capture_output=True, text=True, check=True).stdout
        print(out.strip())
        return
    code = hx711_driver() + READOUTS.format(n=args.readouts)
    vb = VirtualBoard(timing=args.timing)
    if args.power_down_us is not None:
        vb.hw.update(hx711_power_down_us=args.power_down_us, hx711_host_noise_us=0)
    with vb:
        t = time.time()
        print(f"{args.readouts} readouts on a virtual board ({args.timing} timing)...", file=sys.stderr)
        p = subprocess.run([str(ROOT / ".venv" / "bin" / "mpremote"), "connect", vb.port, "exec", code],
                           capture_output=True, text=True, timeout=max(600, args.readouts))
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode or not lines:
            sys.exit(f"the readouts failed: {p.stdout[-800:]}{p.stderr[-800:]}")
        result = json.loads(lines[-1])
        result["timing"] = args.timing
        result["wall_s"] = round(time.time() - t)
        print(json.dumps(result))


if __name__ == "__main__":
    main()
