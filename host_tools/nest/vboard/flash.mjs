// The board's flash as the VM sees it (Emscripten MEMFS) and as the host keeps it: snapshots
// carried across resets, the --flash folder, and the ESP32's 2 MB capacity.
import fs from "node:fs";
import path from "node:path";

// Emscripten's own folders at the root, not on a board's flash (also hidden by the os shim)
export const HIDDEN_ROOT = new Set(["dev", "proc", "tmp", "home"]);

// ---- the flash is 2 MB (ESP32_GENERIC, 4 KB blocks, as os.statvfs reports): full means ENOSPC ----
export const FLASH_BLOCK = 4096, FLASH_BLOCKS = 512;

export function usedBlocks(FS, dir) {
  let n = 1;
  for (const name of FS.readdir(dir)) {
    if (name === "." || name === ".." || (dir === "/" && HIDDEN_ROOT.has(name))) continue;
    const p = dir === "/" ? "/" + name : dir + "/" + name;
    const st = FS.stat(p);
    n += FS.isDir(st.mode) ? usedBlocks(FS, p) : 1 + Math.floor(st.size / FLASH_BLOCK);
  }
  return n;
}

// Would an fd_write of these iovecs (wasm memory `heapU8`) overflow the flash?
export function wouldOverflow(FS, heapU8, iov, iovcnt) {
  const heap = new DataView(heapU8.buffer);
  let bytes = 0;
  for (let i = 0; i < iovcnt; i++) bytes += heap.getUint32(iov + 8 * i + 4, true);
  if (!bytes) return false;
  try { return usedBlocks(FS, "/") + Math.ceil(bytes / FLASH_BLOCK) > FLASH_BLOCKS; } catch (e) { return false; }
}


function walk(FS, dir, files, dirs) {
  for (const name of FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    if (dir === "/" && HIDDEN_ROOT.has(name)) continue;
    const p = dir === "/" ? "/" + name : dir + "/" + name;
    const st = FS.stat(p);
    if (FS.isDir(st.mode)) { dirs.push(p); walk(FS, p, files, dirs); } else files.set(p, FS.readFile(p));
  }
}

export function snapshot(FS) {
  const files = new Map();
  const dirs = [];
  walk(FS, "/", files, dirs);
  return { files, dirs };
}

export function restore(FS, snap) {
  for (const d of snap.dirs) { try { FS.mkdir(d); } catch (e) { /* exists */ } }
  for (const [p, data] of snap.files) FS.writeFile(p, data);
}

export function loadFlashDir(dir) {
  const snap = { files: new Map(), dirs: [] };
  const rec = (host, rel) => {
    for (const ent of fs.readdirSync(host, { withFileTypes: true })) {
      const h = path.join(host, ent.name), r = rel + "/" + ent.name;
      if (ent.isDirectory()) { snap.dirs.push(r); rec(h, r); } else if (ent.isFile()) snap.files.set(r, new Uint8Array(fs.readFileSync(h)));
    }
  };
  if (dir && fs.existsSync(dir)) rec(dir, "");
  return snap;
}


// Mirrors the VM's files into a host folder, writing only what changed since the last call.
export class FlashMirror {
  constructor(root) {
    this.root = root;
    this.synced = loadFlashDir(root); // what the folder holds
  }

  sync(FS) {
    let snap;
    try { snap = snapshot(FS); } catch (e) { return; }
    const root = this.root, synced = this.synced;
    for (const d of snap.dirs) fs.mkdirSync(path.join(root, d), { recursive: true });
    for (const [p, data] of snap.files) {
      const old = synced.files.get(p);
      if (old && old.length === data.length && Buffer.compare(Buffer.from(old), Buffer.from(data)) === 0) continue;
      const host = path.join(root, p);
      fs.writeFileSync(host + ".tmp-vb", data);
      fs.renameSync(host + ".tmp-vb", host);
    }
    for (const p of synced.files.keys()) if (!snap.files.has(p)) fs.rmSync(path.join(root, p), { force: true });
    for (const d of [...synced.dirs].reverse()) if (!snap.dirs.includes(d)) fs.rmSync(path.join(root, d), { recursive: true, force: true });
    this.synced = snap;
  }
}
