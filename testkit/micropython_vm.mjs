// Runs Python code inside the real MicroPython VM (the official WebAssembly port, pinned in
// package-lock.json) for the host test suite. Requests and answers are JSON lines on stdin and
// stdout; whatever the VM prints is captured and returned with the answer, never mixed in.
//   {"op": "put", "path": "/lib/gulo/rules.mpy", "b64": "..."}  -> {"ok": true}
//   {"op": "exec", "code": "..."}                                 -> {"ok": bool, "out": "...", "error": "..."}
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import readline from "node:readline";

let captured = "";
const collect = (line) => { captured += line + "\n"; };
// A generous heap: host tests replay long traces; the ESP32 budget is checked on the virtual board.
const mp = await loadMicroPython({ heapsize: 8 * 1024 * 1024, stdout: collect, stderr: collect, linebuffer: true });

function mkdirs(path) {
  let dir = "";
  for (const part of path.split("/").slice(1, -1)) {
    dir += "/" + part;
    try { mp.FS.mkdir(dir); } catch (e) { /* exists */ }
  }
}

function answer(obj) { process.stdout.write(JSON.stringify(obj) + "\n"); }

const rl = readline.createInterface({ input: process.stdin, terminal: false });
answer({ ok: true, ready: true });
for await (const line of rl) {
  let req;
  try { req = JSON.parse(line); } catch (e) { answer({ ok: false, error: "bad request: " + e.message }); continue; }
  captured = "";
  try {
    if (req.op === "put") {
      mkdirs(req.path);
      mp.FS.writeFile(req.path, Buffer.from(req.b64, "base64"));
      answer({ ok: true });
    } else if (req.op === "exec") {
      mp.runPython(req.code);
      answer({ ok: true, out: captured });
    } else {
      answer({ ok: false, error: "unknown op " + req.op });
    }
  } catch (e) {
    answer({ ok: false, out: captured, error: e.message });
  }
}
