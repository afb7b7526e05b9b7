// Single-producer single-consumer byte ring in a SharedArrayBuffer: the input worker writes, the
// VM thread reads. Header: [0] bytes written, [1] bytes read (free-running uint32 counters).
"use strict";

const HEADER = 8;

function ringCreate(size) {
  // size must be a power of two so that counters wrap cleanly
  return new SharedArrayBuffer(HEADER + size);
}

function ringWrite(sab, bytes) {
  const hdr = new Int32Array(sab, 0, 2);
  const data = new Uint8Array(sab, HEADER);
  const size = data.length;
  let off = 0;
  while (off < bytes.length) {
    const w = Atomics.load(hdr, 0) >>> 0;
    const r = Atomics.load(hdr, 1) >>> 0;
    const free = size - ((w - r) >>> 0);
    if (free === 0) {
      // full: the VM is busy and nobody drains; wait for the reader (like a UART FIFO stalling)
      Atomics.wait(hdr, 1, r | 0, 50);
      continue;
    }
    const n = Math.min(free, bytes.length - off);
    for (let i = 0; i < n; i++) data[(w + i) & (size - 1)] = bytes[off + i];
    Atomics.store(hdr, 0, (w + n) | 0);
    off += n;
  }
}

function ringRead(sab) {
  const hdr = new Int32Array(sab, 0, 2);
  const data = new Uint8Array(sab, HEADER);
  const size = data.length;
  const w = Atomics.load(hdr, 0) >>> 0;
  const r = Atomics.load(hdr, 1) >>> 0;
  const n = (w - r) >>> 0;
  if (n === 0) return null;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = data[(r + i) & (size - 1)];
  Atomics.store(hdr, 1, (r + n) | 0);
  Atomics.notify(hdr, 1);
  return out;
}

module.exports = { ringCreate, ringWrite, ringRead };
