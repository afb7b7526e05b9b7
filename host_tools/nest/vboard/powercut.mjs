// What a power cut leaves on the ESP32's flash, applied to the VM's files (Emscripten MEMFS, whose
// writes are otherwise instant and durable), and power cuts aimed at one flash operation.
//
// MicroPython's ESP32 build keeps its files on littlefs v2 (VfsLfs2). Its guarantees, from
// littlefs-project/littlefs at adad0fb:
//   - lfs.h, lfs_file_write: "The file will not actually be updated on the storage until either
//     sync or close is called"; lfs_file_close writes "as though sync had been called". README:
//     "if power is lost the filesystem will fall back to the last known good state".
//   - lfs.c, lfs_file_opencfg_ (LFS_O_CREAT): a new file's name is committed to its directory at
//     open ("create entry to remember name"), so a file created but never closed survives a cut
//     empty; an existing file opened with O_TRUNC keeps its old content (the truncation is only
//     in RAM until the sync).
//   - DESIGN.md, metadata pairs and "The move problem": a commit (and so a rename within one
//     directory) is atomic: the old name or the new, never both, never neither.
// So at a cut: every file open for writing goes back to what it held when it was opened (empty
// if the open created it); closed files and renames stand. MEMFS already renames atomically.
// A cut lands before the operation it is aimed at: that operation never happens.

const O_ACCMODE = 3; // musl, as Emscripten's syscalls use it: O_WRONLY 1, O_RDWR 2

export class PowerCuts {
  constructor() {
    this.reset();
    this.aim = null;     // {n, offMs}: cut before the n-th flash operation from now
    this.last = null;    // the last aimed cut: {kind, path, n}
    this.counts = { open: 0, write: 0, close: 0, rename: 0 };
  }

  // a fresh VM: no file is open
  reset() {
    this.openFiles = new Map(); // fd -> {path, before: Uint8Array | null}
  }

  // Before openat(path, flags): what the file holds now; null for a read-only open.
  beforeOpen(FS, path, flags) {
    if ((flags & O_ACCMODE) === 0) return null;
    const abs = path.startsWith("/") ? path : (FS.cwd() === "/" ? "" : FS.cwd()) + "/" + path;
    let before = null;
    try { before = FS.readFile(abs); } catch (e) { /* a new file */ }
    return { path: abs, before };
  }

  afterOpen(fd, token) {
    if (token && fd >= 0) this.openFiles.set(fd, token);
  }

  isOpenForWrite(fd) {
    return this.openFiles.has(fd);
  }

  closed(fd) {
    this.openFiles.delete(fd);
  }

  // What littlefs shows after a cut now: every file open for writing as it was at its open.
  tear(FS) {
    const torn = [];
    for (const { path, before } of this.openFiles.values()) {
      try { FS.writeFile(path, before ?? new Uint8Array(0)); torn.push(path); } catch (e) { /* gone */ }
    }
    this.openFiles.clear();
    return torn;
  }

  // ---- aimed cuts ----
  arm(n, offMs) {
    this.aim = { n: Math.max(1, n | 0), offMs: offMs || 0 };
    this.last = null;
  }

  // Called before each flash operation; true if the power dies right now, before it.
  step(kind, path) {
    this.counts[kind] += 1;
    if (!this.aim) return false;
    this.aim.n -= 1;
    if (this.aim.n > 0) return false;
    this.last = { kind, path, offMs: this.aim.offMs };
    this.aim = null;
    return true;
  }
}
