// ESP32 timing for the virtual board: a board clock that runs at the speed an ESP32 would, and
// a pacer that holds the VM back so the wall clock (the world, the serial line, the watchdog)
// keeps up with that board clock. See docs/virtual-board.md, "Where it is an ESP32 and where it
// is not", for every figure below and the test that keeps it true.
//
// What costs what on the board clock:
// - the firmware's own bytecode: the host CPU time it took here, times a factor (how much slower
//   an ESP32 runs MicroPython bytecode than this VM, calibrated on perf_bench, below);
// - the shims (machine.Pin, PWM, bitstream, sleeps, the simulated world: C or hardware on the
//   ESP32, Python here): their host time is left out, and each call is charged what the ESP32's C
//   call costs (PIN_CALL_US), plus the hardware's own time (NeoPixel bits, flash program/erase);
// - sleeps: the time slept.
// Host CPU time is the board thread's own (HostCpu, below): neither Node's other threads nor
// the time the host preempted it, nor the firmware's first WAKE_US after a sleep.
import fs from "node:fs";
import v8 from "node:v8";

// The host CPU time of the thread the VM runs on (Node's main thread), in us, step by step: the
// firmware's bytecode time is this times FACTOR, so whatever else it counts is multiplied too.
// - process.cpuUsage() counts every thread of the process, V8's GC and compiler helpers and the
//   input worker too, and theirs in scheduler ticks (a jump of 7.2 ms between two calls a few us
//   apart); so a step counts at most the time this thread can have run:
// - the wall clock, less the time the thread waited for a CPU (run_delay, the second field of
//   /proc/thread-self/schedstat, ns: "time spent waiting on a runqueue", the Linux kernel's
//   Documentation/scheduler/sched-stats.rst; the kernel adds it when the thread is back on a CPU);
// - and a step in which V8 collected its heap (the heap in use shrank: a scavenge frees ~2 MB and
//   stops this thread 0.3-0.5 ms here) counts nothing: that pause is the host's, not the firmware's.
// Measured with `.venv/bin/python -m lab.vboard_pulse_stress` (lab/notebooks/virtual-board-history.md): with
// the CPU time capped by the wall clock alone, 7 in 15,000 HX711 readouts had a clock pulse that
// powered the virtual chip down; with this, 2 (and none with the chip model's two limits,
// mpy/_vbhw.py). Where schedstat cannot be read (not Linux) the wall clock alone caps a step.
// `src` replaces the host's clocks (test_vboard_timing.py).
export class HostCpu {
  constructor(src = null) {
    this.src = src || hostClocks();
    this.cpu = 0;    // process CPU us at the last step
    this.heap = 0;   // V8's heap in use at the last step, bytes
    this.ran = 0;    // the most this thread can have run: wall - waited, the largest seen
    this.wall = 0;   // wall us at the last step (0: none yet)
  }

  // host CPU us of this thread since the last step (0 at the first)
  step() {
    const src = this.src, wall = src.wallUs(), cpu = src.cpuUs();
    if (this.wall && wall - this.wall < SHORT_STEP_US) {
      // Too short to hold a preemption or a collection worth the reads (a few us each, and the
      // bit-banged HX711 makes thousands of steps a second): whatever such a step holds, it
      // counts at most its wall time, and a wait or a collection in it is seen at the next
      // long step (the reads below compare with the last ones made).
      const d = Math.max(0, Math.min(cpu - this.cpu, wall - this.wall));
      this.cpu = cpu;
      this.ran += wall - this.wall;
      this.wall = wall;
      return d;
    }
    // The wall clock before the wait: a preemption between the two reads is then taken off once
    // (were the wait read first, it would be counted; a wait seen before its wall time lowers
    // `ran` for one step, which keeping the largest `ran` absorbs).
    const ran = wall - src.waitedUs(), heap = src.heapBytes(), cpu2 = src.cpuUs();
    const d = this.wall && heap >= this.heap ? Math.max(0, Math.min(cpu - this.cpu, ran - this.ran)) : 0;
    // These reads (a few us, and a collection they set off) are the clock's own time, not the
    // firmware's: the next step starts after them. (Counted, they were ~3 us x FACTOR of board
    // time after each long step: the firmware idle at 80 SPS showed 71 % of the ESP32 busy
    // instead of 68 %, and the alarm's p95 rose 10 ms, in `make bench`.)
    // At most READS_MAX_US of it, and no more than the CPU it took: a preemption in the middle of
    // the reads is in the wait already, and must not be taken off twice.
    const end = src.wallUs(), reads = Math.max(0, Math.min(end - wall, cpu2 - cpu, READS_MAX_US));
    this.cpu = cpu2;
    this.heap = heap;
    this.ran = Math.max(this.ran, ran) + reads;
    this.wall = end;
    return d;
  }
}

// Steps shorter than this read only the wall clock and the CPU time (HostCpu.step).
const SHORT_STEP_US = 50;
// The most a long step's own reads are taken to cost (about 3 us here: schedstat 2.3, the heap 0.5).
const READS_MAX_US = 20;

// The host's clocks HostCpu reads (also lab/vboard_pulse_stress.py --hiccups).
export function hostClocks() {
  let fd = -1;
  try { fd = fs.openSync("/proc/thread-self/schedstat", "r"); } catch { /* not Linux */ }
  const buf = Buffer.alloc(96);
  return {
    wallUs: () => performance.now() * 1000,
    waitedUs: () => {
      if (fd < 0) return 0;
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      const s = buf.toString("latin1", 0, n), a = s.indexOf(" ");
      return Number(s.slice(a + 1, s.indexOf(" ", a + 1))) / 1000;
    },
    cpuUs: () => { const u = process.cpuUsage(); return u.user + u.system; },
    heapBytes: () => v8.getHeapStatistics().used_heap_size,
  };
}

// ---- CPU: bytecode time = host CPU time x factor ----
// ESP32_GENERIC boots at 160 MHz: ESP-IDF's default CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ, since the
// board does not take ports/esp32/boards/sdkconfig.240mhz (micropython commit 59c1b7d4b8, "make
// 160MHz the default"); the firmware never calls machine.freq(). Bytecode time is taken
// to scale with the CPU clock when it does (flash cache misses do not, so this flatters 240 MHz).
export const DEFAULT_MHZ = 160;
// The factor: how many ESP32 us one host CPU us of the firmware's bytecode stands for, at 160 MHz.
// Calibrated on MicroPython's own tests/perf_bench, nine workloads, against the ESP32 scores
// published in micropython PR #7850 ("esp32-perf": the ESP32_GENERIC build at its
// default 160 MHz, with the VM in IRAM and -O2, as the port still builds it), to a median
// board/ESP32 ratio of 1 (`.venv/bin/python -m lab.bench_timing --calibrate DIR`, DIR a
// MicroPython checkout). Calibration runs: factor 15.6 -> median ratio 0.76, 14.5 -> 0.74,
// implying 11.9 and 10.7, so 11.3; then 11.3 -> 1.07 (implying 12.1). The runs scatter: this
// shared machine's speed moves by up to 1.8x from one second to the next with the other tenants'
// load, and host CPU time with it (lab/notebooks/virtual-board-history.md). The check, on a benchmark it was not
// tuned on: pystone (below).
export const FACTOR = 11.3;
// ESP32 @ 240 MHz, official MicroPython v1.12 image: 1661 pystones/s, micropython-pystone_lowmem
// with 500 passes (micropython/micropython issue #5673, "499 VS 1661?").
export const ESP32_PYSTONES = 1661;

// ---- the C side of a machine call (Pin.value, PWM.duty_u16, ...) on the ESP32 ----
// Not a published figure (none found): an estimate of gpio_set_level and the C call's dispatch.
// Its weight: an HX711 readout makes ~75 machine calls (firmware/gulo/hx711.py: 3 per bit), so at
// 80 SPS each us of it is 0.6 % of the ESP32's CPU (docs/virtual-board.md).
export const PIN_CALL_US = 2;

// ---- WS2812B NeoPixels: 24 bits per LED at 800 kHz (1.25 us a bit) = 30 us per LED ----
// (Worldsemi WS2812B datasheet, "Data transfer time": TH+TL = 1.25 us +-600 ns). The ESP32
// port's machine.bitstream sends them with the CPU waiting (ports/esp32/machine_bitstream.c).
export const WS2812_US_PER_BYTE = 8 * 1.25;

// ---- SPI NOR flash of the WROOM-32 module (W25Q32JV family), littlefs on top ----
// Winbond W25Q32JV datasheet (rev. H), AC electrical characteristics: page program tPP typ
// 0.4 ms / max 3 ms (256-byte pages), sector erase tSE typ 45 ms / max 400 ms (4 KB sectors).
export const FLASH_PAGE = 256, FLASH_SECTOR = 4096;
export const FLASH_COSTS = {
  typ: { page_us: 400, sector_us: 45000 },
  max: { page_us: 3000, sector_us: 400000 },
};

// littlefs's write pattern, per open file: copy-on-write, so every 4 KB block a file's data enters
// is erased before it is programmed; data is programmed page by page as it fills; closing the file
// programs the last partial page and appends one commit to the directory's metadata pair (one
// page). A rename or a remove is one metadata commit. (littlefs DESIGN.md, "Metadata pairs" and
// "CTZ skip-lists"; the metadata pair's compaction, an erase every few dozen commits, is left out.)
export class FlashCost {
  constructor(costs) {
    this.costs = costs;
    this.open = new Map(); // fd -> bytes written since it was opened
    this.count = { pages: 0, sectors: 0 };
  }

  _charge(pages, sectors) {
    this.count.pages += pages;
    this.count.sectors += sectors;
    return pages * this.costs.page_us + sectors * this.costs.sector_us;
  }

  // us the ESP32 spends writing `bytes` more to file `fd`
  write(fd, bytes) {
    const before = this.open.get(fd) || 0, after = before + bytes;
    this.open.set(fd, after);
    const sectors = Math.ceil(after / FLASH_SECTOR) - Math.ceil(before / FLASH_SECTOR);
    const pages = Math.floor(after / FLASH_PAGE) - Math.floor(before / FLASH_PAGE);
    return this._charge(pages, sectors);
  }

  // us for closing `fd` (0 when nothing was written through it)
  close(fd) {
    if (!this.open.has(fd)) return 0;
    const written = this.open.get(fd);
    this.open.delete(fd);
    return this._charge((written % FLASH_PAGE ? 1 : 0) + 1, 0);
  }

  // a rename or a remove: one metadata commit
  commit() { return this._charge(1, 0); }
}

// The board clock and the pacer. `wait(ms)` blocks the thread (the board passes one that still
// lets Ctrl-C, the watchdog and control requests in).
export class Esp32Clock {
  // factor: at DEFAULT_MHZ (the calibrated one unless a test or a calibration asks for another)
  constructor({ factor = FACTOR, flash = "typ", wait }) {
    this.factor160 = factor;
    this.factor = factor;
    this.flash = new FlashCost(FLASH_COSTS[flash]);
    this.wait = wait;
    this.boardUs = 0;     // the board clock
    this.origin = 0;      // wall us at which board time 0 would have been, while running
    this.depth = 0;       // shims in progress (a Signal calls a Pin: they nest)
    // Host us a shim call costs the firmware here beyond a plain Python call (the bridge between
    // Python and JS, crossed twice each way): measured at start (warmUp, below), taken off the
    // firmware's next stretch, since a C call on the ESP32 has no such bridge.
    this.overheadUs = 0;
    this.credit = 0;
    this.cold = 0;        // host us still to take off the firmware after a sleep (WAKE_US)
    this.host = new HostCpu();
    this.wall = 0;
    // what the clock was made of, for {"op":"timing"} and lab/bench_timing.py
    this.stats = { firmware_host_us: 0, firmware_us: 0, shim_host_us: 0, shim_us: 0, io_us: 0,
      slept_us: 0, stalled_us: 0, cold_host_us: 0, behind_us: 0, shim_calls: 0, leds: 0 };
  }

  // host CPU us of the board's thread since the last mark
  _step() {
    const d = this.host.step();
    this.wall = this.host.wall;
    return d;
  }

  // machine.freq(): bytecode time scales with the clock
  setMhz(mhz) { this.account(); this.factor = this.factor160 * DEFAULT_MHZ / mhz; }



  // Python starts running (a REPL byte, a file, the pin service): what came before was not the
  // board's work, and the wall clock is lined up with the board clock.
  resume() {
    this._step();
    this.depth = 0; // a shim left by an exception (Ctrl-C) is over
    this.credit = 0;
    this.cold = 0;
    this.origin = this.wall - this.boardUs;
  }

  // account the time since the last mark as the firmware's (or as a shim's, inside one)
  account() {
    let d = this._step();
    if (this.depth) { this.stats.shim_host_us += d; return; }
    const bridge = Math.min(d, this.credit);
    this.credit -= bridge;
    this.stats.shim_host_us += bridge;
    d -= bridge;
    const cold = Math.min(d, this.cold);
    this.cold -= cold;
    this.stats.cold_host_us += cold;
    d -= cold;
    this.stats.firmware_host_us += d;
    this.stats.firmware_us += d * this.factor;
    this.boardUs += d * this.factor;
  }

  shimIn() { this.account(); this.depth++; this.stats.shim_calls++; }

  shimOut(costUs) {
    this.account();
    this.depth = Math.max(0, this.depth - 1);
    if (this.depth) return; // the outer call is the one the ESP32 makes
    this.credit = Math.min(this.credit + this.overheadUs, 4 * this.overheadUs);
    this.boardUs += costUs;
    this.stats.shim_us += costUs;
  }

  // hardware time the ESP32 spends in a call (flash, LEDs, a busy wait)
  charge(us) { this.boardUs += us; this.stats.io_us += us; }

  leds(bytes) { this.stats.leds += bytes / 3; this.charge(bytes * WS2812_US_PER_BYTE); }

  slept(us) { this._step(); this.cold = WAKE_US; this.boardUs += us; this.stats.slept_us += us; }

  // How far the board clock is ahead of the wall clock (us; negative: the host was slower).
  lag() { return this.boardUs - (performance.now() * 1000 - this.origin); }

  // Hold the VM until the wall clock has caught up with the board clock. When the host was the
  // slower one (a shim, host preemption), the board may run ahead again by at most BEHIND_US of it,
  // so a slow shim's time is made up by the firmware's next stretch, not forgotten or piled up.
  pace() {
    this.account();
    let lag = this.lag();
    if (lag < -BEHIND_US) { this.stats.behind_us += -lag - BEHIND_US; this.origin += -lag - BEHIND_US; lag = -BEHIND_US; }
    if (lag < STALL_MIN_US) return;
    const t = performance.now();
    this.wait(lag / 1000);
    this.stats.stalled_us += (performance.now() - t) * 1000;
    this._step(); // the stall is no one's CPU
  }

  snapshot() {
    return { board_us: Math.round(this.boardUs), factor: this.factor, flash: { ...this.flash.count },
      shim_overhead_us: this.overheadUs, ref_host_us: this.refHostUs,
      ...Object.fromEntries(Object.entries(this.stats).map(([k, v]) => [k, Math.round(v)])) };
  }
}

// Below this the VM is not held back: each stall costs a wake-up and leaves the CPU's caches
// cold, which slows the firmware's next stretch (counted, stretched: pystone scored 514 instead of
// 1661 with a stall every 0.5 ms). Fewer, longer stalls; the board runs ahead by 2 ms at most.
export const STALL_MIN_US = 2000;
export const BEHIND_US = 5000;

// After a sleep the firmware's first host CPU is slow for the host's sake: the VM's code and data
// have left this CPU's caches meanwhile, and at the factor that is ESP32 time an ESP32 does not
// spend. An asyncio pass after a sleep to the tick (7-10 ms) cost the firmware 123-202 us of host
// CPU, one back to back 31-57 us (so 70-150 us is the wake; docs/virtual-board.md, "ESP32
// timing"); its first stretch alone (the bridge's return into Python, one call) 37-43 us against
// 2.7 us back to back, and 28-39 us when the thread spun in JS instead of waiting in
// Atomics.wait: cold caches, not the CPU's idle state. So the first WAKE_US of the firmware's host
// CPU after a sleep is taken off (stats.cold_host_us), about the least of that; each sleep sets
// it afresh (not added up), and the shims' time, left out anyway, does not use it. (Counted, the
// pacer's stalls it caused moved the event loop's clock past 1 ms deadlines: the sleeps to the
// tick of test_vboard_timing.py had a median of 6 ms in 1 run of 30.) Not after the pacer's
// stalls (STALL_MIN_US, above): a loop of bytecode is stalled every ~180 us of host CPU and its
// few lines warm up again at once; discounted there too, it ran at 8x instead of 11x.
export const WAKE_US = 100;

// Node compiles the VM's WebAssembly lazily and tiers hot functions up while it runs: code run for
// the first time is 3-6x slower (pystone_lowmem, 500 passes: 35 ms cold, 10-11 ms warm), and that
// would be stretched too. So every function is compiled at load (before the VM is), and a
// throwaway VM runs the interpreter's common paths first (the compiled code is shared by all
// later VMs); it also measures the bridge's cost of a shim call (Esp32Clock.overheadUs).
export function compileEagerly() { v8.setFlagsFromString("--no-wasm-lazy-compilation"); }

export async function warmUp(loadMicroPython, clock) {
  const vm = await loadMicroPython({ heapsize: 160 * 1024, stdout: () => {}, stderr: () => {}, linebuffer: false });
  vm.runPython(WARM_UP);
  // a bracketed no-op against a plain Python no-op, median of 9
  const scratch = new Esp32Clock({ wait: () => {} });
  vm.registerJsModule("_vbjs", { shim_in: () => scratch.shimIn(), shim_out: (n) => scratch.shimOut(n) });
  vm.runPython("import _vbjs\nsi, so = _vbjs.shim_in, _vbjs.shim_out\ndef plain(): pass\ndef timed():\n    si()\n    so(0)");
  const cpu = (code) => { const c = process.cpuUsage(); vm.runPython(code); const d = process.cpuUsage(c); return d.user + d.system; };
  const n = 3000, costs = [];
  for (let i = 0; i < 9; i++) {
    const plain = cpu(`for i in range(${n}): plain()`), timed = cpu(`for i in range(${n}): timed()`);
    costs.push((timed - plain) / n);
  }
  costs.sort((a, b) => a - b);
  clock.overheadUs = Math.max(0, costs[4]);
  // The host's speed now, for the record ({"op":"timing"} ref_host_us): a reference workload,
  // fastest of 7. Not used to set the factor: on this shared machine it moves by up to 1.8x from
  // one second to the next (2,455-5,220 us within 12 s), so a snapshot taken at start made the
  // board's speed a random draw (lab/notebooks/virtual-board-history.md).
  vm.runPython(REF_SETUP);
  const refs = [];
  for (let i = 0; i < 7; i++) refs.push(cpu("ref()"));
  clock.refHostUs = Math.min(...refs);
}

// One pass of the reference workload: plain bytecode (calls, attributes, dicts, ints, strings).
const REF_SETUP = `
class R:
    def __init__(self, n): self.n = n
    def m(self, k): return self.n ^ k
def ref():
    d = {}
    s = 0
    for i in range(1500):
        r = R(i)
        s += r.m(i) + (i * 7) % 13
        d[i & 31] = s
        if i % 100 == 0: s = len(str(s))
    return s
`;

const WARM_UP = `
class C:
    def __init__(self, n): self.n = n
    def m(self, k): return self.n + k
def f(a, b=2, *args, **kw): return a * b
d = {}
for r in range(60):
    s = 0
    for i in range(300):
        c = C(i)
        s += c.m(i) + f(i) + f(i, b=3)
        d[i % 17] = str(i) + "x"
        try:
            if i % 50 == 0: raise ValueError(i)
        except ValueError as e:
            s -= 1
    l = [x * 2 for x in range(100) if x & 1]
    t = "%d %s" % (s, l[3])
    b = bytearray(64)
    b[3] = s & 255
`;
