#!/usr/bin/env python3
"""Load an HTML page in headless Chromium and check it (issue 25, item 5).

    browser_check.py PAGE.html --section ID [--section ID ...]

Passes (exit 0) when the page loads, nothing was logged to the console (no
error, no uncaught exception, no failed load: Chromium's log does not say a
message's level, and the report page logs nothing), and every named section is in the DOM *and* was laid out with a
height (the page's own script lists the sections it sees on load in
`<body data-shown="...">`, which `--dump-dom` carries back). Exit 1: a check
failed (each failure is printed). Exit 77: no Chromium could be had (the Rust
test that calls this skips then, saying why). Exit 2: usage.

Chromium: $CHROMIUM, else `chromium` on PATH, else Debian's packages fetched
with `apt-get download` (chromium and the libraries it needs that are not
installed, first alternatives only) into tools/.cache/chromium and unpacked
there with `dpkg-deb -x`: no root needed, nothing installed system-wide.
Only the standard library is used.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "tools" / ".cache" / "chromium"
UNPACKED = CACHE / "root"
BINARY = UNPACKED / "usr" / "lib" / "chromium" / "chromium"
DONE = CACHE / "complete"
SKIP = 77
# What the cache holds; bump when NOT_NEEDED or the unpacking changes.
STAMP = "browser_check cache 1"

# Packages a headless page load does not need although chromium's control
# file names them (desktop integration): leaving them out keeps the download
# to chromium and its libraries.
NOT_NEEDED = {"x11-utils", "xdg-utils", "libgtk-3-0", "chromium-sandbox"}


def log(msg):
    """A progress line on stderr (the Rust test shows it when the check fails or skips)."""
    print(f"browser_check: {msg}", file=sys.stderr, flush=True)


def installed(pkg):
    """Whether a Debian package is installed here: those need not be fetched."""
    r = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", pkg],
        capture_output=True,
        text=True,
    )
    return r.returncode == 0 and "install ok installed" in r.stdout


def depends(pkg):
    """First alternative of each Depends/Pre-Depends of pkg (virtual ones left out)."""
    r = subprocess.run(
        ["apt-cache", "depends", "--no-recommends", "--no-suggests", pkg],
        capture_output=True,
        text=True,
    )
    out, in_group = [], False
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\|?)(Pre-)?Depends: (\S+)", line)
        if not m:
            continue
        more, name = m.group(1) == "|", m.group(3)
        # `|Depends: a` is followed by a's alternatives, the last without `|`.
        if not in_group and not name.startswith("<"):
            out.append(name.split(":")[0])
        in_group = more
    return out


def closure():
    """The packages to fetch: chromium and what it depends on, recursively, less what is
    installed and what a headless load does not need."""
    want, seen, queue = [], set(), ["chromium", "chromium-common"]
    while queue:
        p = queue.pop()
        if p in seen or p in NOT_NEEDED:
            continue
        seen.add(p)
        if installed(p):
            continue
        want.append(p)
        queue.extend(depends(p))
    return sorted(want)


def has_candidate():
    """Whether apt knows a chromium package to download (the package lists may be empty in a
    fresh container)."""
    r = subprocess.run(["apt-cache", "policy", "chromium"], capture_output=True, text=True)
    m = re.search(r"Candidate:\s*(\S+)", r.stdout)
    return bool(m) and m.group(1) != "(none)"


def fetch():
    """Chromium from Debian's packages, downloaded and unpacked under tools/.cache/chromium
    without root; None (the check skips) when that cannot be done."""
    for tool in ("apt-get", "apt-cache", "dpkg-deb", "dpkg-query"):
        if shutil.which(tool) is None:
            log(f"{tool} not found: cannot fetch Chromium's Debian packages")
            return None
    if not has_candidate() and os.geteuid() == 0:
        log("no chromium candidate in the package lists: running apt-get update")
        try:
            subprocess.run(["apt-get", "update", "-qq"], check=False, timeout=600)
        except subprocess.TimeoutExpired:
            log("apt-get update took over 10 minutes")
    if not has_candidate():
        log("apt-cache policy chromium shows no candidate")
        return None
    pkgs = closure()
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    # Packages already downloaded (an earlier, interrupted fetch) are kept.
    todo = [p for p in pkgs if not any(debs.glob(f"{p}_*.deb"))]
    log(f"apt-get download {len(todo)} of {len(pkgs)} packages into {debs}")
    try:
        r = subprocess.run(
            ["apt-get", "download", *todo], cwd=debs, capture_output=True, text=True, timeout=1200
        )
    except subprocess.TimeoutExpired:
        log("apt-get download took over 20 minutes; giving up")
        return None
    if todo and r.returncode != 0:
        log(f"apt-get download failed: {r.stderr.strip()[-2000:]}")
        return None
    if UNPACKED.exists():
        shutil.rmtree(UNPACKED)
    UNPACKED.mkdir(parents=True)
    for deb in sorted(debs.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(UNPACKED)], check=True)
    if not BINARY.exists():
        log(f"{BINARY} missing after unpacking")
        return None
    DONE.write_text(STAMP + "\n" + "\n".join(pkgs) + "\n")
    return BINARY


def chromium():
    """The browser to use: $CHROMIUM, chromium on PATH, a complete unpacked cache, else one
    fetched now; None when none can be had."""
    env = os.environ.get("CHROMIUM")
    if env:
        return Path(env)
    on_path = shutil.which("chromium")
    if on_path:
        return Path(on_path)
    # The marker's first line is STAMP: a change to what is fetched (bump
    # STAMP) fetches again. Working out the package list takes apt-cache
    # minutes on a busy machine, so a complete cache is trusted as it is.
    if DONE.exists() and BINARY.exists():
        if DONE.read_text().split("\n", 1)[0] == STAMP:
            return BINARY
    return fetch()


def lib_path():
    """Library folders of the unpacked packages, for the unpacked binary."""
    dirs = [UNPACKED / "usr" / "lib" / "chromium"]
    for base in (UNPACKED / "usr" / "lib", UNPACKED / "lib"):
        dirs += [base / "x86_64-linux-gnu", base / "x86_64-linux-gnu" / "pulseaudio", base]
    return ":".join(str(d) for d in dirs if d.is_dir())


def load(binary, page, timeout):
    """Loads the page headless with a fresh profile and returns Chromium's run (the dumped
    DOM on stdout, its log on stderr); the unpacked browser gets its libraries' path."""
    env = dict(os.environ)
    if str(binary).startswith(str(UNPACKED)):
        extra = lib_path()
        env["LD_LIBRARY_PATH"] = extra + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    with tempfile.TemporaryDirectory(prefix="browser-check-") as profile:
        cmd = [
            str(binary),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            # Any network fetch fails (and is logged): the page must be self-contained.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=3000",
            "--dump-dom",
            page.resolve().as_uri(),
        ]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


# Chromium logs each console message as `...:INFO:CONSOLE:line] "text", source: ...`
# at INFO whatever the message's level (console.error too), and uncaught
# exceptions (`Uncaught TypeError: ...`) and failed loads the same way. The
# report page logs nothing, so every console message counts as an error.
CONSOLE = re.compile(r":[A-Z]+:CONSOLE[^\]]*\]\s*(.*)")


def console_errors(stderr):
    """The console messages in Chromium's log: the report page logs nothing, so any is a
    failure."""
    return [line.strip() for line in stderr.splitlines() if CONSOLE.search(line)]


def check(dom, stderr, sections):
    """The failures of a load: console messages, a page that did not load, and each named
    section that is missing from the DOM or was not laid out (the page lists what it
    showed in body's data-shown)."""
    failures = [f"console error: {e}" for e in console_errors(stderr)]
    if "<body" not in dom:
        failures.append("the page did not load (no <body> in the dumped DOM)")
        return failures
    m = re.search(r'<body[^>]*\sdata-shown="([^"]*)"', dom)
    shown = set(m.group(1).split()) if m else set()
    if not m:
        failures.append("the page's load script did not run (no data-shown on <body>)")
    for s in sections:
        if not re.search(rf'<section[^>]*\sid="{re.escape(s)}"', dom):
            failures.append(f'section "{s}" is not in the DOM')
        elif m and s not in shown:
            failures.append(f'section "{s}" is in the DOM but was not laid out (zero height)')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("--section", action="append", default=[], help="a section id that must be shown")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    if not args.page.is_file():
        log(f"{args.page}: no such file")
        return 2
    binary = chromium()
    if binary is None:
        log("SKIP: Chromium could not be obtained")
        return SKIP
    try:
        r = load(binary, args.page, args.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: {args.page}: Chromium did not finish within {args.timeout:.0f} s")
        return 1
    except OSError as e:
        log(f"SKIP: cannot start {binary}: {e}")
        return SKIP
    if r.returncode != 0 and "<body" not in r.stdout:
        # A browser that cannot start (a library missing) is no verdict on the page.
        log(f"SKIP: {binary} exited {r.returncode} without a page: {r.stderr.strip()[-1500:]}")
        return SKIP
    failures = check(r.stdout, r.stderr, args.section)
    for f in failures:
        print(f"FAIL: {args.page}: {f}")
    if failures:
        return 1
    print(f"ok: {args.page}: loaded in {binary.name}, no console error, sections shown: {' '.join(args.section)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
