// Reader thread of the virtual board. The VM runs Python on the main thread and gives JS no
// control while it does, so this worker reads the launcher's pipe (fd 0) on its own and parks the
// bytes in shared memory: the main thread finds them from its polling hooks (Ctrl-C in a busy
// loop) or when it sleeps (Atomics.wait on the same counter).
//
// Frames on fd 0, from the Python launcher: 1 byte kind ("S" serial bytes, "C" one control JSON
// line), 4 bytes little-endian length, payload.
"use strict";
const fs = require("node:fs");
const { workerData, parentPort } = require("node:worker_threads");
const { ringWrite } = require("./ring.cjs");

const { serial, control, signal } = workerData;
const sig = new Int32Array(signal);
const buf = Buffer.alloc(65536);
let have = Buffer.alloc(0);

function wake() {
  Atomics.add(sig, 0, 1);
  Atomics.notify(sig, 0);
  parentPort.postMessage(0); // wakes the main thread's event loop when it is idle
}

for (;;) {
  let n;
  try {
    n = fs.readSync(0, buf, 0, buf.length, null);
  } catch (e) {
    if (e.code === "EAGAIN") continue;
    n = 0;
  }
  if (n === 0) {
    Atomics.store(sig, 1, 1); // EOF: the launcher is gone
    wake();
    break;
  }
  have = have.length ? Buffer.concat([have, buf.subarray(0, n)]) : Buffer.from(buf.subarray(0, n));
  let woke = false;
  while (have.length >= 5) {
    const len = have.readUInt32LE(1);
    if (have.length < 5 + len) break;
    const kind = String.fromCharCode(have[0]);
    const payload = have.subarray(5, 5 + len);
    // A control line is stamped with when it came (this thread's ms, "@<ms> " before the JSON):
    // the main thread may be stalled by the host while lines pile up, and a button's release must
    // still come as long after its press as it did here (board.mjs, queuePin).
    if (kind === "C") ringWrite(control, Buffer.concat([Buffer.from(`@${performance.now().toFixed(3)} `), payload]));
    else ringWrite(serial, payload);
    have = have.subarray(5 + len);
    woke = true;
  }
  if (woke) wake();
}
