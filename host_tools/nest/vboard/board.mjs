// The virtual ESP32: the real MicroPython VM (WebAssembly port) with a serial REPL on fd 0/1 and a
// control channel (requests in fd 0 frames, answers as JSON lines on fd 3). Started by
// host_tools/nest/vboard/launcher.py, which owns the pseudo-terminal, the baud throttle and the
// TCP control socket; see docs/virtual-board.md.
//
// What this file adds to the bare port, and why:
// - the VM blocks this thread while Python runs, so input arrives through a reader thread and
//   shared memory, and wrapped wasm imports poll it: Ctrl-C lands even in `while True: pass`;
// - raw-paste mode is answered here (the port's own raw-paste reads stdin and hangs);
// - WASI errno numbers are mapped back to MicroPython's (mpremote parses them);
// - `\n` becomes `\r\n`, the banner names an ESP32, soft reset is a fresh VM with the files kept;
// - sleeps block in Atomics.wait instead of spinning, and wake on input or control requests.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MP, mapErrno } from "./errno.mjs";
import { FlashMirror, loadFlashDir, restore, snapshot, wouldOverflow } from "./flash.mjs";
import { DEFAULT_MHZ, Esp32Clock, HostCpu, PIN_CALL_US, compileEagerly, warmUp } from "./timing.mjs";
import { PowerCuts } from "./powercut.mjs";

const require = createRequire(import.meta.url);
const { ringCreate, ringRead } = require("./ring.cjs");
const HERE = path.dirname(fileURLToPath(import.meta.url));
const cfg = JSON.parse(process.argv[2] || "{}");
// The MicroPython VM: the file the launcher found (the repository's node_modules, or the user's
// data folder of an installed nest: nest/vboard/launcher.py find_vm), else Node's own resolution.
const { loadMicroPython } = await import(
  cfg.vm ? pathToFileURL(cfg.vm).href : "@micropython/micropython-webassembly-pyscript");

// ESP32 reset causes, as machine.reset_cause() reports them.
const PWRON_RESET = 1, HARD_RESET = 2, WDT_RESET = 3, SOFT_RESET = 5;
// Raw-paste flow control as the ESP32 port has it: MICROPY_REPL_STDIN_BUFFER_MAX is pyexec.c's
// default 256 (no esp32 file overrides it), the window is half of it and two windows are free at
// the start (mp_reader_new_stdin in shared/runtime/pyexec.c).
const RAW_PASTE_WINDOW = 128;

// ---- shared input: serial bytes and control lines from the reader thread ----
const serialRing = ringCreate(1 << 20);
const controlRing = ringCreate(1 << 16);
const signalSab = new SharedArrayBuffer(8);
const sig = new Int32Array(signalSab);
let seenSig = 0;
const worker = new Worker(path.join(HERE, "input_worker.cjs"),
  { workerData: { serial: serialRing, control: controlRing, signal: signalSab } });

// ---- ESP32 timing (timing.mjs): null with --timing host, the VM's own speed ----
if (cfg.timing !== "host") compileEagerly();
const clock = cfg.timing === "host" ? null
  : new Esp32Clock({ factor: cfg.timing_factor || undefined, flash: cfg.timing === "esp32-worst" ? "max" : "typ", wait: stallMs });
// The VM held back so the wall clock catches up with the ESP32 clock; input, control requests,
// the watchdog and a scheduled power cut still land meanwhile, as in a sleep. A Ctrl-C is an
// interrupt only while Python runs: after a REPL byte, it waits for the REPL like any byte (else
// the next command, e.g. a deploy's, would start with a KeyboardInterrupt).
function stallMs(ms) {
  const end = performance.now() + ms;
  for (;;) {
    const s = Atomics.load(sig, 0);
    if (s !== seenSig) drainInputs(board.inVm > 0);
    checkWdt();
    checkCut();
    const left = end - performance.now();
    if (left <= 0 || board.pendingReset) return;
    Atomics.wait(sig, 0, s, left);
  }
}
// The ESP32's file system cost (flash program/erase, littlefs's pattern) for the file syscalls
// that reach the flash; the host's own time for them is left out like a shim's.
function flashTimed(f, self, a, cost) {
  if (!clock || !board.inVm) return f.apply(self, a);
  clock.shimIn();
  const r = f.apply(self, a);
  clock.shimOut(0);
  clock.charge(cost(r));
  clock.pace();
  return r;
}

// ---- board state that outlives a VM (a reset keeps the world, the flash and the wiring) ----
// Timers armed by Python through `js.setTimeout` (the port's asyncio armed one for a pending sleep
// until _vbboot._patch_asyncio gave its task queue a scheduler that arms none) belong to the VM
// that armed them: a reset or a power cut kills that VM, so they go with it.
// Left alone, one fires later and runs the dead VM's code, which takes the board's inputs and
// control requests meant for the new VM (the power-cut drill: lost events, "board busy").
const vmTimers = new Set();
let vmTimerDepth = 0;  // > 0 while a VM timer's callback runs Python
const nodeSetTimeout = globalThis.setTimeout;
const nodeClearTimeout = globalThis.clearTimeout;
globalThis.setTimeout = function (fn, ms, ...args) {
  if (!(board.inVm || vmTimerDepth) || typeof fn !== "function") return nodeSetTimeout(fn, ms, ...args);
  const t = nodeSetTimeout((...a) => {
    vmTimers.delete(t);
    vmTimerDepth++;
    try { return fn(...a); } finally { vmTimerDepth--; }
  }, ms, ...args);
  vmTimers.add(t);
  return t;
};
globalThis.clearTimeout = function (t) { vmTimers.delete(t); return nodeClearTimeout(t); };
function dropVmTimers() {
  for (const t of vmTimers) nodeClearTimeout(t);
  vmTimers.clear();
}

const board = {
  vm: null,
  inVm: 0,               // >0 while Python runs (hooks may then throw a reset through the VM)
  rebooting: false,
  off: false,            // power is cut
  mode: "friendly",      // REPL mode, tracked from the bytes fed to it
  rawLineLen: 0,
  paste: null,           // raw-paste collection {stage, code, got}
  pending: [],           // serial bytes waiting for the REPL
  resetCause: PWRON_RESET,
  boots: 0,
  wdt: null,             // {timeout, deadline}
  overrides: new Map(),  // pin -> level forced from outside (button pressed, reed stuck)
  outputs: new Map(),    // pin -> {mode, pull, value} as the firmware set them
  leds: new Map(),       // pin -> hex string of the last bitstream
  pwm: new Map(),        // pin -> {freq, duty_u16}
  pwmLog: [],            // the last PWM_LOG_MAX writes {t_ms (world), pin, freq, duty_u16}: a short tone
                         // is over before a poll sees it; the log keeps when it sounded
  worldLog: [],          // JSON strings of world actions, replayed into each VM
  inputsVersion: 0,      // bumped when anything outside changes what a pin would read
  files: null,           // filesystem snapshot carried across resets
  cutAt: null,           // performance.now() of a scheduled power cut
  mem: { shims: 0, alloc: 0, peak: 0 }, // heap use (bytes) as the shims report it
  cutOffMs: 0,
  ready: false,          // "ready" sent to the launcher (once): the REPL or the app is up
  bootStartedAt: null,   // performance.now() when boot.py/main.py began to run
  // Pin IRQs (the shims tell when the next edge is due: _vbhw.service -> irq_next)
  irqDue: null,          // world ms of the next foreseen edge or timer, null: none armed
  irqVersion: 0,         // inputsVersion at the last scan: a change (button, world action) is due now
  irqAsked: false,       // the scan is scheduled and has not run yet
  isr: null,             // {schedule, scan}: micropython.schedule and _vbhw.isr of the running VM
};

const worldMs = () => Math.floor(Date.now() - cfg.epoch_ms);
const PWM_LOG_MAX = 512; // the siren is 20 writes; a game's tunes between two reads fit many times
function logPwm(pin, freq, duty_u16) {
  board.pwmLog.push({ t_ms: worldMs(), pin, freq, duty_u16 });
  if (board.pwmLog.length > PWM_LOG_MAX) board.pwmLog.shift();
}
const irqDueNow = () => board.irqDue !== null &&
  (board.inputsVersion !== board.irqVersion || worldMs() >= board.irqDue);

// The ESP32's GPIO interrupt: once an edge is due, have the VM scan the pins at its next pending
// check, between two bytecodes, as machine_pin_isr_handler's mp_sched_schedule does on the ESP32
// (micropython ports/esp32/machine_pin.c). This port has no hook of its own between bytecodes (the
// pyscript variant leaves MICROPY_VARIANT_ENABLE_JS_HOOK at 0, ports/webassembly/mpconfigport.h),
// so it is done from the bridge's import hooks: micropython.schedule called from here runs no
// bytecode (it queues), and the scan runs where the VM checks for pending callbacks.
function irqHook() {
  if (board.irqAsked || !board.isr || !irqDueNow()) return;
  board.irqAsked = true;
  try { board.isr.schedule(board.isr.scan, 0); } catch (e) {
    if (e.name !== "PythonError") throw e;
    board.irqAsked = false; // the schedule queue is full: the ESP32 would drop it; try again later
  }
}

// A real board's port is there as soon as it is plugged in, and a board whose main.py runs the
// app never shows a prompt. So the board is ready at its first REPL prompt, or once boot.py/main.py
// waits for something (a sleep, the event loop, stdin: the app has finished starting), or after
// READY_BUSY_MS of an app that never waits.
const READY_BUSY_MS = 1000;
function markReady() {
  if (board.ready) return;
  board.ready = true;
  reply({ event: "ready" });
}
function markReadyIfBooting() {
  if (!board.ready && board.bootStartedAt !== null) markReady();
}

class BoardReset extends Error {
  constructor(kind, cause) { super(`board ${kind} reset`); this.kind = kind; this.cause = cause; }
}

// ---- output: filtered, buffered, written synchronously (pipes are sync on Linux) ----
const out = { buf: Buffer.alloc(65536), len: 0, prev: 0, swallow: null, mute: false, hold: null };
const BANNER_PREFIX = "MicroPython v";

function putByte(b) {
  if (out.len >= out.buf.length) flushOut();
  out.buf[out.len++] = b;
}

function emitRaw(bytes) { for (const b of bytes) putByte(b); }
function emitText(s) { emitRaw(Buffer.from(s, "latin1")); }

function banner(line) {
  // The port says "JS with Emscripten" and a git tag; a board says what it is.
  return line.replace(/v1\.29\.0-[^ ]+/, "v1.29.0").replace(/; JS with Emscripten/, "; Generic ESP32 module with ESP32");
}

function vmByte(b) {
  if (out.mute || board.off) return;
  if (out.swallow) { // the "OK" a raw-REPL ^D prints, which raw-paste mode does not
    if (b === out.swallow[0]) { out.swallow = out.swallow.slice(1); if (!out.swallow.length) out.swallow = null; return; }
    out.swallow = null;
  }
  if (out.hold !== null) { // holding a line that may be the banner
    out.hold.push(b);
    const s = Buffer.from(out.hold).toString("latin1");
    if (b === 10) { out.hold = null; cooked(Buffer.from(banner(s), "latin1")); return; }
    if (s.length <= BANNER_PREFIX.length && !BANNER_PREFIX.startsWith(s)) { out.hold = null; cooked(Buffer.from(s, "latin1")); }
    return;
  }
  if ((out.prev === 10 || out.prev === 13) && b === 77 /* M */) { out.hold = [b]; return; }
  cooked([b]);
}

function cooked(bytes) {
  for (const b of bytes) {
    if (b === 10 && out.prev !== 13) putByte(13);
    putByte(b);
    out.prev = b;
  }
}

function flushOut() {
  if (!out.len) return;
  let off = 0;
  while (off < out.len) {
    try { off += fs.writeSync(1, out.buf, off, out.len - off); } catch (e) {
      if (e.code === "EAGAIN") { Atomics.wait(sig, 0, Atomics.load(sig, 0), 2); continue; }
      process.exit(0); // the launcher is gone
    }
  }
  out.len = 0;
}

// ---- control answers (fd 3) ----
function reply(obj) {
  const line = Buffer.from(JSON.stringify(obj) + "\n");
  try { fs.writeSync(cfg.ctl_fd ?? 3, line); } catch (e) { /* no launcher listening: nothing to do */ }
}

// ---- polling: called from wasm import hooks while Python runs, and from the idle loop ----
let hookCount = 0;

function drainInputs(fromVm) {
  seenSig = Atomics.load(sig, 0);
  let woke = false;
  const ctl = ringRead(controlRing);
  if (ctl) {
    for (const line of Buffer.from(ctl).toString("utf8").split("\n")) {
      if (line.trim()) { handleControl(line); woke = true; }
    }
  }
  const bytes = ringRead(serialRing);
  if (bytes) {
    for (const b of bytes) {
      if (fromVm && b === 3 && !board.off) {
        // Ctrl-C while Python runs: raise KeyboardInterrupt at the next bytecode check, as the
        // ESP32's UART ISR does; the byte itself does not reach the REPL.
        board.vm._module._mp_sched_keyboard_interrupt();
        board.kbd = true;
        woke = true;
      } else if (!board.off) {
        board.pending.push(b);
      }
    }
  }
  if (Atomics.load(sig, 1) === 1) shutdown();
  return woke;
}

function checkWdt() {
  if (board.wdt && performance.now() > board.wdt.deadline) {
    board.wdt = null;
    resetFromInside("hard", WDT_RESET);
  }
}

// Resets are only ever thrown from the wasm import hooks (poll): a JS function that Python called
// would have its exception turned into a Python one, which firmware could catch.
function resetFromInside(kind, cause) {
  if (!board.pendingReset) board.pendingReset = { kind, cause };
}

// A power cut scheduled for an instant (e.g. in the middle of a file write): JS timers cannot
// fire while Python runs, so the hooks, sleeps and the idle loop look at the clock.
function checkCut() {
  if (board.cutAt !== null && performance.now() >= board.cutAt) {
    board.cutAt = null;
    resetFromOutside({ kind: "power", offMs: board.cutOffMs });
  }
}

function poll() {
  if (clock) clock.pace();
  alive.tick();
  if (Atomics.load(sig, 0) !== seenSig) drainInputs(true);
  if (pinQueue.length) applyDuePins();
  if (!board.ready && board.bootStartedAt !== null && performance.now() - board.bootStartedAt > READY_BUSY_MS) markReady();
  checkWdt();
  checkCut();
  if (board.pendingReset) { const r = board.pendingReset; board.pendingReset = null; throw new BoardReset(r.kind, r.cause); }
  irqHook();
  if (out.len) flushOut();
}

// ---- the flash's file operations: littlefs's behaviour at a power cut (powercut.mjs) ----
const cuts = new PowerCuts();
const syscallResult = (r) => (typeof r === "number" && r < 0 && r > -4096) ? -mapErrno(-r) : r;
const fdResult = (r) => (typeof r === "number" && r > 0) ? mapErrno(r) : r;

// The dying VM after a cut, still unwinding: it does nothing more to the flash. (A boot that
// restores the files while the power is still flagged off is not the VM: inVm is 0 then.)
const powerless = () => board.off && board.inVm > 0;

// Is this flash operation the one an aimed cut waits for? Then the power dies before it.
function cutBefore(kind, path) {
  if (!cuts.step(kind, path)) return false;
  resetFromOutside({ kind: "power", cause: PWRON_RESET, offMs: cuts.last.offMs });
  // Thrown from this import hook at once, as poll() does: not one more bytecode of the dying VM
  // runs (it would catch the error, arm timers, touch the board).
  if (board.pendingReset) { const r = board.pendingReset; board.pendingReset = null; throw new BoardReset(r.kind, r.cause); }
  return true;
}

// Wrappers for the file syscalls that matter at a power cut (open for writing, write, close,
// rename); null for the others. A board without power does nothing more to its flash (EIO).
function flashHook(name, f) {
  if (name === "__syscall_openat") {
    return function (dirfd, pathPtr, flags, varargs) {
      if (powerless()) return -MP.EIO;
      const vm = board.vm;
      const token = vm ? cuts.beforeOpen(vm.FS, vm._module.UTF8ToString(pathPtr), flags) : null;
      if (token && cutBefore("open", token.path)) return -MP.EIO;
      const r = f.call(this, dirfd, pathPtr, flags, varargs);
      cuts.afterOpen(r, token);
      return syscallResult(r);
    };
  }
  if (name === "fd_write") {
    return function (fd, iov, iovcnt, pnum) {
      if (fd > 2 && cuts.isOpenForWrite(fd)) {
        if (powerless() || cutBefore("write", null)) return MP.EIO;
      }
      if (fd > 2 && board.vm && wouldOverflow(board.vm.FS, board.vm._module.HEAPU8, iov, iovcnt)) return MP.ENOSPC;
      if (fd <= 2) return fdResult(f.call(this, fd, iov, iovcnt, pnum));
      // ESP32 timing: the bytes written cost littlefs's page programs and sector erases
      return fdResult(flashTimed(f, this, [fd, iov, iovcnt, pnum], (res) => (res === 0
        ? clock.flash.write(fd, new DataView(board.vm._module.HEAPU8.buffer).getUint32(pnum, true)) : 0)));
    };
  }
  if (name === "fd_close") {
    return function (fd) {
      if (cuts.isOpenForWrite(fd)) {
        // littlefs commits a file at its close (lfs_file_close: as though sync had been called)
        if (powerless() || cutBefore("close", null)) return MP.EIO;
        const data = cuts.openFiles.get(fd).path.startsWith("/data/");
        cuts.closed(fd);
        const r = fdResult(flashTimed(f, this, [fd], () => clock.flash.close(fd)));
        // The commit point of a line appended to the game log (gulo.store.append: no rename):
        // the --flash folder follows it at once, as it follows a rename (below). Only the nest's
        // own files (/data): a deploy's hundred closes need no snapshot each.
        if (r === 0 && data) { try { syncFlash(); } catch (e) { /* best effort */ } }
        return r;
      }
      return fdResult(flashTimed(f, this, [fd], () => clock.flash.close(fd)));
    };
  }
  if (name === "__syscall_renameat") {
    return function (...a) {
      if (powerless() || cutBefore("rename", null)) return -MP.EIO;
      const r = flashTimed(f, this, a, (res) => (res === 0 ? clock.flash.commit() : 0));
      // A rename is the commit point of every file the firmware stores (gulo.store); the
      // --flash folder follows it at once, so a host killed without warning (SIGKILL, a closed
      // terminal) loses at most the write in flight, as the board itself would.
      if (r === 0) { try { syncFlash(); } catch (e) { /* best effort */ } }
      return syscallResult(r);
    };
  }
  if (name === "__syscall_unlinkat" || name === "__syscall_rmdir") {
    return function (...a) {
      if (powerless()) return -MP.EIO;
      return syscallResult(flashTimed(f, this, a, (res) => (res === 0 ? clock.flash.commit() : 0)));
    };
  }
  if (name === "__syscall_mkdirat") {
    return function (...a) { return powerless() ? -MP.EIO : syscallResult(f.apply(this, a)); };
  }
  return null;
}

function wrapImports(imports) {
  const seen = new Set();
  for (const ns of Object.values(imports)) {
    if (seen.has(ns)) continue;
    seen.add(ns);
    for (const name of Object.keys(ns)) {
      const f = ns[name];
      if (typeof f !== "function") continue;
      const hooked = flashHook(name, f);
      if (hooked) { ns[name] = hooked; continue; }
      if (name.startsWith("__syscall_")) {
        ns[name] = function (...a) { const r = f.apply(this, a); return (typeof r === "number" && r < 0 && r > -4096) ? -mapErrno(-r) : r; };
      } else if (name.startsWith("fd_")) {
        ns[name] = function (...a) { const r = f.apply(this, a); return (typeof r === "number" && r > 0) ? mapErrno(r) : r; };
      } else if (name === "mp_js_ticks_ms" || /^invoke_(ii|iii|iiii|vi|vii|viii)$/.test(name)) {
        // the VM calls these constantly, even in `while True: pass`: a cheap place to poll
        ns[name] = function (...a) {
          if (board.inVm && (board.pendingReset || (++hookCount & 1023) === 0)) poll();
          return f.apply(this, a);
        };
      }
    }
  }
}

const realInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = function (bin, imports) { if (imports) wrapImports(imports); return realInstantiate.call(this, bin, imports); };

// ---- sys.stdin inside the VM: the serial bytes that arrive while Python runs (the ESP32's UART
// buffer); a read blocks until one comes, Ctrl-C ends it (EOF, then KeyboardInterrupt) ----
function stdinByte() {
  flushOut();
  markReadyIfBooting();
  for (;;) {
    const s = Atomics.load(sig, 0);
    if (s !== seenSig) drainInputs(true);
    if (board.kbd) { board.kbd = false; return null; }
    if (board.pending.length) return board.pending.shift();
    checkWdt();
    checkCut();
    if (board.pendingReset || board.off || !board.inVm) return null;
    Atomics.wait(sig, 0, s, 50);
  }
}

// ---- the module the shims inside the VM call (registered as `_vbjs`) ----
const t0 = performance.now();
let sleptUs = 0;

// The CPU time the board's code had, in us: its thread's own (HostCpu, timing.mjs), which leaves
// out Node's other threads and the time the host preempted it.
const hostCpu = new HostCpu();
let cpuUs = 0;
function boardCpuUs() {
  cpuUs += hostCpu.step();
  return cpuUs;
}
const boardTotalUs = () => { if (clock) { clock.account(); return clock.boardUs; } return boardCpuUs() + sleptUs; };
const boardFixedUs = () => (clock ? clock.boardUs - clock.stats.firmware_us : sleptUs);
const sck = { fixed: 0, total: 0, limit: 0, margin: 0 };
const jsApi = {
  config: () => JSON.stringify(cfg.hw || {}),
  seed: () => cfg.seed || 1,
  world_ms: worldMs,
  // the next edge is due at world ms `ms` (-1: no IRQ or timer armed, 0: scan at the next chance)
  irq_next: (ms) => {
    board.irqDue = ms < 0 ? null : ms;
    board.irqVersion = board.inputsVersion;
  },
  // the scheduled scan runs: another may be scheduled (one at a time, so that the scans never
  // fill the VM's schedule queue, 4 deep on this port, which the firmware's handlers share)
  irq_ran: () => { board.irqAsked = false; },
  irq_due: () => (irqDueNow() ? 1 : 0),
  world_len: () => board.worldLog.length,
  world_log: (from) => "[" + board.worldLog.slice(from).join(",") + "]",
  inputs_version: () => board.inputsVersion,
  ticks_us: () => Math.floor((performance.now() - t0) * 1000) & 0x3fffffff,
  // Time the board really had: CPU time plus time blocked in sleeps, but not time the host
  // preempted us (a noisy machine must not stretch an HX711 clock pulse into a power-down).
  board_us: () => Math.floor(boardTotalUs()) % 1e9,
  // The HX711's clock pulse (_vbhw.HX711): marked at its rising edge, judged at its falling one,
  // one bridge call each (thousands a second). Held too long: past `limit` us of the time known
  // exactly (sleeps; on ESP32 timing also the shims' C calls, flash and LEDs), or past
  // limit + margin of board time with the firmware's bytecode, which is measured on a noisy host.
  sck_limits: (limit, margin) => { sck.limit = limit; sck.margin = margin; },
  sck_rise: () => { sck.fixed = boardFixedUs(); sck.total = boardTotalUs(); },
  sck_held: () => (boardFixedUs() - sck.fixed > sck.limit || boardTotalUs() - sck.total > sck.limit + sck.margin ? 1 : 0),
  sck_high_us: () => Math.floor(boardTotalUs() - sck.total),
  busy_us: (us) => {
    if (clock) { clock.account(); clock.charge(us); clock.pace(); return; } // the pacer waits it out
    const end = performance.now() + us / 1000; while (performance.now() < end) { /* ESP32 busy-waits short delays too */ }
  },
  // ESP32 timing: the shims bracket their own work (C on the ESP32), charged `calls` C calls
  timed: () => (clock ? 1 : 0),
  cpu_mhz: (mhz) => clock.setMhz(mhz),
  shim_in: () => { clock.shimIn(); clock.pace(); },
  shim_out: (calls) => { clock.shimOut(calls * PIN_CALL_US); },
  // Blocks without spinning; returns 1 early if input or a control request came (the caller
  // rescans pins and lets a KeyboardInterrupt land), 0 when the time is up.
  // `tick`: the event loop's wait for the FreeRTOS tick (_vbboot._to_tick), `ms` whole ms of
  // ticks_ms from now: it ends as ticks_ms turns to the tick's ms, as the ESP32's ticks come every
  // 10 ms (the port's ticks_ms is Date.now() less a whole-ms epoch; performance.timeOrigin +
  // performance.now() is Date.now() to the us), not whole ms from the call, which a stall of the
  // pacer before it makes late.
  sleep_ms: (ms, tick) => {
    if (board.irqAsked) return 1; // a pin scan is queued: it runs first (the caller rescans)
    const until = Date.now() + ms;
    flushOut();
    if (clock) clock.pace(); // a sleep starts when the ESP32 would have got there
    markReadyIfBooting();
    const end = performance.now() + ms;
    for (;;) {
      const s = Atomics.load(sig, 0);
      if (s !== seenSig && drainInputs(true)) return 1;
      if (pinQueue.length && applyDuePins()) return 1; // a button's release came due: rescan
      checkWdt();
      checkCut();
      if (board.pendingReset) return 1;
      const now = performance.now();
      let left = end - now;
      if (tick) {
        if (Date.now() >= until || left <= -1) return 0; // (-1: the host's clock was set back)
        left = Math.max(until - performance.timeOrigin - now, 0.02);
      } else if (left <= 0) return 0;
      if (board.wdt) left = Math.min(left, Math.max(0, board.wdt.deadline - now) + 1);
      if (board.cutAt !== null) left = Math.min(left, Math.max(0, board.cutAt - now) + 0.5);
      if (pinQueue.length) left = Math.min(left, pinWaitMs + 0.1); // slept time is lived
      alive.tick();
      const before = performance.now();
      Atomics.wait(sig, 0, s, left);
      const took = performance.now() - before;
      sleptUs += took * 1000;
      if (clock) clock.slept(took * 1000);
      alive.slept(Math.min(took, left)); // longer than asked: the host stalled the wake-up
    }
  },
  exited: () => { board.exited = true; },
  mem_base: (alloc) => { board.mem = { shims: alloc, alloc, peak: alloc }; },
  mem: (alloc) => { board.mem.alloc = alloc; board.mem.peak = Math.max(board.mem.peak, alloc); },
  stdin_ready: () => {
    if (Atomics.load(sig, 0) !== seenSig) drainInputs(true);
    return board.pending.length > 0 ? 1 : 0;
  },
  override: (pin) => (board.overrides.has(pin) ? board.overrides.get(pin) : -1),
  pin_state: (pin, mode, pull, value) => { board.outputs.set(pin, { mode, pull, value }); },
  leds: (pin, hex) => { board.leds.set(pin, hex); if (clock) clock.leds(hex.length / 2); },
  pwm: (pin, freq, duty) => {
    if (freq <= 0) board.pwm.delete(pin); else board.pwm.set(pin, { freq, duty_u16: duty });
    logPwm(pin, Math.max(freq, 0), freq > 0 ? duty : 0);
  },
  wdt: (timeout) => { board.wdt = { timeout, deadline: performance.now() + timeout }; },
  wdt_feed: () => { if (board.wdt) board.wdt.deadline = performance.now() + board.wdt.timeout; },
  reset: (cause) => resetFromInside("hard", cause || SOFT_RESET),
  soft_reset: () => resetFromInside("soft", board.resetCause),
  reset_cause: () => board.resetCause,
};

let mirror = null; // the --flash folder

function syncFlash() {
  if (mirror && board.vm && !board.off) mirror.sync(board.vm.FS);
}

// ---- VM lifecycle ----
function shimFiles() {
  const files = new Map();
  for (const name of fs.readdirSync(cfg.shim_dir)) if (name.endsWith(".py")) files.set(name, fs.readFileSync(path.join(cfg.shim_dir, name)));
  files.set("_vbworld.py", fs.readFileSync(cfg.world_path));
  return files;
}
const SHIMS = shimFiles();

async function newVm(snap) {
  cuts.reset(); // a fresh VM has no file open
  const vm = await loadMicroPython({ heapsize: cfg.heapsize || 160 * 1024, stdin: stdinByte,
    stdout: (b) => vmByte(b[0]), stderr: (b) => vmByte(b[0]), linebuffer: false });
  const FS = vm.FS;
  for (const d of ["/tmp", "/home/web_user", "/home"]) { try { FS.rmdir(d); } catch (e) { /* busy or gone */ } }
  // Shims are imported from a scratch folder that is removed again: `ls :` shows only the user's files.
  FS.mkdir("/.vb");
  for (const [name, data] of SHIMS) FS.writeFile("/.vb/" + name, data);
  vm.registerJsModule("_vbjs", jsApi);
  board.vm = vm;
  if (clock) clock.setMhz(DEFAULT_MHZ); // machine.freq() of a new VM says 160 MHz
  // not counted as "in the VM": the hooks must not land a Ctrl-C or a reset inside the shims' set-up
  vm.runPython("import sys\nsys.path.insert(0, '/.vb')\nimport _vbboot\n_vbboot.install()\nsys.path.pop(0)\ndel sys");
  board.irqDue = null;
  board.irqAsked = false;
  board.isr = { schedule: vm.pyimport("micropython").schedule, scan: vm.pyimport("_vbhw").isr };
  vm.runPython("import gc\ngc.collect()\nimport _vbjs\n_vbjs.mem_base(gc.mem_alloc())\ndel gc, _vbjs");
  for (const name of SHIMS.keys()) FS.unlink("/.vb/" + name);
  FS.rmdir("/.vb");
  restore(FS, snap);
  return vm;
}

function runInVm(code) {
  vmEnter();
  try { board.vm.runPython(code); } finally { vmLeave(); }
}

// Python runs from here to vmLeave: on the ESP32 clock (the bridge's own work in between is not)
function vmEnter() {
  if (clock && !board.inVm) clock.resume();
  board.inVm++;
}
function vmLeave() {
  board.inVm--;
  if (clock && !board.inVm && !board.pendingReset) clock.pace();
}

// True when the file ended with SystemExit (sys.exit()): the ESP32 soft-resets then.
function runFile(name) {
  board.exited = false;
  runInVm(`__import__('_vbboot').run_file(${JSON.stringify(name)})`);
  return board.exited;
}

const ROM_TEXT = (cause) => {
  const rst = { [PWRON_RESET]: "0x1 (POWERON_RESET)", [HARD_RESET]: "0x1 (POWERON_RESET)", [WDT_RESET]: "0x7 (TG0WDT_SYS_RESET)", [SOFT_RESET]: "0xc (SW_CPU_RESET)" }[cause] || "0x1 (POWERON_RESET)";
  return `ets Jul 29 2019 12:21:46\r\n\r\nrst:${rst},boot:0x13 (SPI_FAST_FLASH_BOOT)\r\nconfigsip: 0, SPIWP:0xee\r\n` +
    "clk_drv:0x00,q_drv:0x00,d_drv:0x00,cs0_drv:0x00,hd_drv:0x00,wp_drv:0x00\r\nmode:DIO, clock div:2\r\n" +
    "load:0x3fff0030,len:4892\r\nho 0 tail 12 room 4\r\nload:0x40078000,len:14896\r\nload:0x40080400,len:4\r\nentry 0x40080648\r\n";
};

// kind: "power" (first start / power back), "hard" (reset pin, machine.reset, WDT), "soft" (Ctrl-D)
async function boot(kind, cause) {
  board.rebooting = true;
  dropVmTimers();
  try {
    if (board.vm) {
      try { board.files = snapshot(board.vm.FS); } catch (e) { /* keep the previous snapshot */ }
    }
    board.vm = null;
    board.paste = null;
    out.swallow = null;
    out.hold = null;
    if (kind !== "soft") {
      board.resetCause = cause;
      board.wdt = null;
      board.mode = "friendly";
      board.outputs.clear();
      board.leds.clear();
      for (const pin of board.pwm.keys()) logPwm(pin, 0, 0);
      board.pwm.clear();
      emitText(ROM_TEXT(cause));
    } else {
      emitText("MPY: soft reboot\r\n");
    }
    out.prev = 10;
    flushOut();
    await newVm(board.files || { files: new Map(), dirs: [] });
    board.boots++;
    board.bootStartedAt = performance.now();
    try {
      if (runFile("boot.py") || (board.mode === "friendly" && runFile("main.py"))) {
        board.rebooting = false;
        board.bootStartedAt = null;
        return boot("soft", board.resetCause);
      }
    } catch (e) {
      board.bootStartedAt = null;
      if (e instanceof BoardReset) { board.rebooting = false; return onReset(e); }
      if (e.name !== "PythonError") throw e;
      process.stderr.write(`vboard: boot failed: ${e.message}\n`);
    }
    out.mute = board.mode === "raw"; // replInit prints the friendly banner; a raw REPL prints its own
    board.vm.replInit();
    out.mute = false;
    if (board.mode === "raw") { out.prev = 10; board.vm.replProcessChar(1); board.rawLineLen = 0; }
    flushOut();
  } finally {
    board.rebooting = false;
    board.bootStartedAt = null;
  }
  markReady();
  syncFlash();
  feedPending();
}

// ---- feeding the REPL ----
function replChar(b) {
  board.kbd = false;
  vmEnter();
  try { return board.vm.replProcessChar(b); } finally { vmLeave(); }
}

function feedByte(b) {
  const p = board.paste;
  if (p) {
    if (p.stage === 1) { // got ^E, expect "A"
      if (b === 65) { p.stage = 2; return 0; }
      board.paste = null; replChar(5); return replChar(b);
    }
    if (p.stage === 2) { // expect ^A: raw-paste is on
      if (b === 1) {
        p.stage = 3; p.code = []; p.got = 0;
        // "R\x01", the window size, and 0x01: a second window is free too
        emitRaw([82, 1, RAW_PASTE_WINDOW & 0xff, RAW_PASTE_WINDOW >> 8, 1]);
        flushOut();
        return 0;
      }
      board.paste = null; replChar(5); replChar(65); return replChar(b);
    }
    if (b === 3) { // Ctrl-C: the paste is abandoned, the raw REPL waits for the next command
      board.paste = null;
      board.rawLineLen = 0;
      // shared/runtime/pyexec.c: mp_reader_stdin_readbyte sends "\x04" (end to host) and raises
      // KeyboardInterrupt from the lexer; parse_compile_execute prints "\x04", the exception (no
      // traceback: no frame ran) and "\x04"; then the raw REPL prompt ">".
      emitText("\x04\x04KeyboardInterrupt: \r\n\x04>");
      flushOut();
      return 0;
    }
    if (b === 4) { // end of data: acknowledge, then run it as an ordinary raw-REPL command
      board.paste = null;
      emitRaw([4]);
      flushOut();
      for (const c of p.code) replChar(c);
      out.swallow = [79, 75]; // "OK"
      board.rawLineLen = 0;
      return replChar(4);
    }
    p.code.push(b);
    if (++p.got % RAW_PASTE_WINDOW === 0) { emitRaw([1]); flushOut(); } // room for another window
    return 0;
  }
  if (board.mode === "raw") {
    if (b === 5 && board.rawLineLen === 0) { board.paste = { stage: 1 }; return 0; }
    if (b === 2) board.mode = "friendly";
    if (b === 3 || b === 4 || b === 1) board.rawLineLen = 0; else board.rawLineLen++;
  } else if (b === 1) {
    board.mode = "raw";
    board.rawLineLen = 0;
  }
  return replChar(b);
}

let feeding = false;
function feedPending() {
  if (feeding || board.rebooting || board.off || !board.vm) return;
  feeding = true;
  try {
    while (board.pending.length && !board.rebooting && !board.off) {
      const b = board.pending.shift();
      let r;
      try {
        r = feedByte(b);
      } catch (e) {
        if (e instanceof BoardReset) { feeding = false; onReset(e); return; }
        throw e;
      }
      if (r === 0x100) { feeding = false; boot("soft", board.resetCause); return; }
    }
    flushOut();
  } finally {
    feeding = false;
  }
  scheduleSync();
}

let syncTimer = null;
function scheduleSync() {
  if (!cfg.flash_dir || syncTimer) return;
  syncTimer = setTimeout(() => { syncTimer = null; syncFlash(); }, 200);
}

// ---- control requests (JS-side state; world actions are replayed inside the VM) ----
function ledColours(pin) {
  const hex = board.leds.get(pin) || "";
  const colours = [];
  for (let i = 0; i + 6 <= hex.length; i += 6) {
    const g = parseInt(hex.slice(i, i + 2), 16), r = parseInt(hex.slice(i + 2, i + 4), 16), b = parseInt(hex.slice(i + 4, i + 6), 16);
    colours.push([r, g, b]); // WS2812 order on the wire is G, R, B
  }
  return colours;
}

// ---- buttons (and any forced level) held as long as the board lived them ----
// A press of 150 ms is 150 ms of the ESP32's life: nothing on a real board stops for that long
// while a task waits for a button. Here the host can stop the board's thread (a loaded machine;
// a SIGSTOP in test_vboard_presses.py): the press and the release then reach the VM in
// one poll, the press is never read, and the firmware (which confirms a level after 20 ms of
// calm, gulo.debounce) never sees it (a 150 ms Reveal is lost so under a 0.3 s SIGSTOP). So a
// press is held until the board has been alive as long since it was applied as the press and the
// release were apart when they came (the input worker's stamps); changes are applied in the order
// they came. A release is held so only when the next change came while it still waited (a double
// click in one poll): a pause between presses that the board has already lived through is not
// made up, or every stall would delay all later presses (each 0.3 s stop would add 0.3 s to
// every later press). While no Python runs (the REPL prompt, the board off) there is no firmware
// to live through them: applied at once.
// Alive: the wall time between two polls of the running VM (every 1024 of its calls into JS, or
// a sleep), at most ALIVE_GAP_MS each: a longer gap is the host's stop, not the board's life. A
// sleep counts the time it asked for, not a late wake-up. (Not the board clock: on host timing
// that counts CPU time and sleeps only, and it ran 20-25 % behind the wall here while the app
// was idle, so every press was held a quarter longer than it came.)
// ALIVE_GAP_MS is a choice, not a measured figure: a stop up to it is counted as lived, so a press
// survives any stop of the host only if it lasts longer than ALIVE_GAP_MS plus the 20 ms calm the
// firmware confirms it after (gulo.debounce): 30 ms. On a starved host every slow poll counts up
// to the cap while the firmware takes one step, so a cap of 50 ms let a 150 ms press (a stop, then
// three slow polls) pass before the firmware had confirmed it (`make test`, 1 run in 4); a running
// VM polls far more often than every 10 ms, so only a stalled one is held back by it.
const ALIVE_GAP_MS = 10;
const alive = {
  ms: 0,
  at: null,  // performance.now() at the last tick
  tick() {
    const now = performance.now();
    if (this.at !== null) this.ms += Math.min(now - this.at, ALIVE_GAP_MS);
    this.at = now;
  },
  slept(ms) { this.ms += ms; this.at = performance.now(); },
};
const pinQueue = [];       // [{pin, level, at, behind}] changes waiting their turn (at: arrival ms;
                           // behind: this pin's previous change was still waiting when it came)
const pinLast = new Map(); // pin -> {level, at, ms}: its last change, arrival, alive.ms when applied
let pinWaitMs = Infinity;  // alive ms until the first waiting change is due

function queuePin(pin, level, at) {
  pinQueue.push({ pin, level, at, behind: pinQueue.some((c) => c.pin === pin) });
  applyDuePins();
}

// Applies the changes that are due; true if any was.
function applyDuePins() {
  let applied = false;
  const live = board.inVm > 0 && !board.off;
  if (live) alive.tick();
  pinWaitMs = Infinity;
  while (pinQueue.length) {
    const c = pinQueue[0], last = pinLast.get(c.pin);
    if (live && last && last.ms !== null && c.at !== null && last.at !== null && (last.level !== null || c.behind)) {
      const left = (c.at - last.at) - (alive.ms - last.ms);
      if (left > 0) { pinWaitMs = left; break; }
    }
    pinQueue.shift();
    if (c.level === null) board.overrides.delete(c.pin); else board.overrides.set(c.pin, c.level);
    board.inputsVersion++;
    pinLast.set(c.pin, { level: c.level, at: c.at, ms: live ? alive.ms : null });
    applied = true;
  }
  return applied;
}

function handleControl(stamped) {
  // "@<ms> " from the input worker: when the line came
  const sp = stamped.startsWith("@") ? stamped.indexOf(" ") : -1;
  const at = sp > 0 ? Number(stamped.slice(1, sp)) : null, line = sp > 0 ? stamped.slice(sp + 1) : stamped;
  let req;
  try { req = JSON.parse(line); } catch (e) { reply({ ok: false, error: "bad JSON" }); return; }
  const id = req.id;
  const ok = (extra) => reply({ id, ok: true, ...extra });
  switch (req.op) {
    case "ping": return ok({ boots: board.boots, mode: board.mode, off: board.off, reset_cause: board.resetCause });
    case "pin": // force an input level (button pressed, reed stuck) or release it (level null)
      queuePin(req.pin, req.level === null || req.level === undefined ? null : (req.level ? 1 : 0), Number.isFinite(at) ? at : null);
      return ok({});
    case "world":
      board.worldLog.push(JSON.stringify(req.entry));
      board.inputsVersion++;
      return ok({});
    case "pins": {
      const pins = {};
      for (const [p, s] of board.outputs) pins[p] = { ...s };
      for (const [p, l] of board.overrides) pins[p] = { ...(pins[p] || {}), forced: l };
      for (const c of pinQueue) (pins[c.pin] = pins[c.pin] || {}).queued = [...(pins[c.pin].queued || []), c.level];
      return ok({ pins });
    }
    case "leds": return ok({ leds: ledColours(req.pin) });
    case "pwm": {
      const since = Number.isFinite(req.since) ? req.since : Infinity; // no "since": no log
      const log = board.pwmLog.filter((e) => e.pin === req.pin && e.t_ms >= since)
        .map(({ t_ms, freq, duty_u16 }) => ({ t_ms, freq, duty_u16 }));
      return ok({ pwm: board.pwm.get(req.pin) || { freq: 0, duty_u16: 0 }, log });
    }
    case "mem": return ok({ mem: { ...board.mem } });
    case "timing": return ok({ timing: cfg.timing || "esp32", clock: clock ? clock.snapshot() : null });
    case "wdt": return ok({ wdt: board.wdt ? { timeout: board.wdt.timeout, left_ms: board.wdt.deadline - performance.now() } : null });
    case "reset": // the EN button
      ok({});
      return resetFromOutside({ kind: "hard", cause: HARD_RESET });
    case "power_cut":
      if (req.at_op > 0) {
        // aimed: before the at_op-th flash operation from now (open for writing, write, close,
        // rename), whatever the firmware is doing then
        cuts.arm(req.at_op, req.off_ms);
        return ok({ armed: req.at_op });
      }
      ok({});
      if (req.in_ms > 0) {
        board.cutAt = performance.now() + req.in_ms;
        board.cutOffMs = req.off_ms || 0;
        return undefined;
      }
      return resetFromOutside({ kind: "power", cause: PWRON_RESET, offMs: req.off_ms || 0 });
    case "flash_ops":
      // the flash operations counted since the board started, the last aimed cut, and the files
      // the last power cut found open for writing (reverted to what they held at their open)
      return ok({ counts: cuts.counts, last_cut: cuts.last, armed: cuts.aim, torn: board.torn || [] });
    default:
      return reply({ id, ok: false, error: `unknown op ${JSON.stringify(req.op)}` });
  }
}

function resetFromOutside(r) {
  if (r.kind === "power") {
    // what littlefs keeps of the files open for writing (powercut.mjs), then the --flash folder
    // shows what survives the cut, also while the app runs
    if (board.vm) { try { board.torn = cuts.tear(board.vm.FS); } catch (e) { /* best effort */ } }
    try { syncFlash(); } catch (e) { /* best effort */ }
    board.off = true;
    dropVmTimers();  // the VM dies with the power, its timers with it
    board.pending.length = 0;
    out.len = 0; // bytes still in the UART die with the power
    board.wdt = null;
    setTimeout(() => { board.off = false; boot("power", PWRON_RESET); }, r.offMs);
    if (board.inVm) board.pendingReset = { kind: "dead" }; // unwind the dying VM from the next hook
    return;
  }
  if (board.inVm) { resetFromInside(r.kind, r.cause); return; }
  setImmediate(() => boot(r.kind, r.cause));
}

function onReset(e) {
  // "dead": the power is off; the power-on timer boots again
  if (e.kind !== "dead") boot(e.kind, e.cause);
}

// ---- idle loop: the VM is not running Python; input arrives as worker messages ----
function idle() {
  if (board.rebooting) return;
  try {
    if (Atomics.load(sig, 0) !== seenSig) drainInputs(false);
    if (pinQueue.length) applyDuePins(); // no Python runs: whatever waits is applied now
    if (board.off) return;
    checkWdt();
    checkCut();
    if (board.pendingReset) { const r = board.pendingReset; board.pendingReset = null; onReset(r); return; }
    if (board.vm && board.inputsVersion !== board.servicedVersion) {
      // IRQs fire at the REPL prompt too: let the shims rescan the pins
      board.servicedVersion = board.inputsVersion;
      try { runInVm("__import__('_vbhw').service()"); } catch (e) {
        if (e.name !== "PythonError") throw e;
        process.stderr.write(`vboard: pin service failed: ${e.message}\n`); // keep the board up
      }
    }
    feedPending();
  } catch (e) {
    if (e instanceof BoardReset) { onReset(e); return; }
    throw e;
  }
}

worker.on("message", idle);
setInterval(idle, 50); // WDT and pin IRQs at the prompt

function shutdown() {
  flushOut();
  try { syncFlash(); } catch (e) { /* best effort */ }
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

// A reset thrown through runPython/replProcessChar from a hook ends up here when nothing else
// caught it (e.g. inside the idle service call).
process.on("unhandledRejection", (e) => {
  process.stderr.write(`vboard: ${e && e.stack ? e.stack : e}\n`);
  process.exit(70);
});
process.on("uncaughtException", (e) => {
  if (e instanceof BoardReset) { onReset(e); return; }
  // A backstop: the port's asyncio keeps a JS timer per pending sleep, and a dead VM's timer that
  // fired later would run `_run_iter` against the next VM (NameError: _task_queue; the board goes
  // silent). dropVmTimers() clears a VM's timers when it dies, so this should not fire; if a timer escapes that bookkeeping, its stale callback is dropped instead of exiting.
  if (e && e.name === "PythonError" && /listOnTimeout|processTimers/.test(e.stack || "")) {
    process.stderr.write(`vboard: ignored a stale VM timer: ${String(e.message).split("\n").slice(-2).join(" ")}\n`);
    return;
  }
  process.stderr.write(`vboard: ${e.stack || e}\n`);
  process.exit(70);
});

board.files = loadFlashDir(cfg.flash_dir);
mirror = cfg.flash_dir ? new FlashMirror(cfg.flash_dir) : null;
if (clock) await warmUp(loadMicroPython, clock);
await boot("power", PWRON_RESET);
