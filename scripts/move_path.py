"""Which of the project's files and functions one race move runs through, measured from outside.

Starts one Daphne whose every thread records the project's functions it enters
(`sys.setprofile` and `threading.setprofile`, set before any thread starts) between two
signals: SIGUSR1 starts a recording, SIGUSR2 writes it out. Two guests set up a race over HTTP,
connect their sockets and start it; once both boards are in, the host plays a first move, then
the recording starts, the host sends a second legal move, and it stops when the host has its `ack` and the other racer the live
`progress` frame that carries the move. Then it prints the files and the functions in the order
they were first entered.

What counts: every function, method and coroutine of the project's own files (not Django,
Channels, Daphne, psycopg or the standard library); comprehensions and lambdas are part of the
function they are written in; the rules engine (`games/engine/`) is one place. A coroutine
resumed counts once, like a function called again.

    .venv/bin/python scripts/move_path.py                      # SQLite, in-memory layer
    .venv/bin/python scripts/move_path.py --database-url postgres://postgres@127.0.0.1:5432/move_path \
        --redis-url redis://127.0.0.1:6379/9                  # PostgreSQL + Redis
    .venv/bin/python scripts/move_path.py --json              # the figures as JSON

The server side is `--serve` (this file run inside the Daphne process, before Daphne itself).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
ENGINE = str(ROOT / "games" / "engine") + os.sep
NOT_FUNCTIONS = {"<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<module>"}
PROJECT_DIRS = tuple(str(ROOT / name) + os.sep for name in ("games", "races", "daily", "boards"))
PROJECT_DIRS += (str(ROOT / "solitaire_site") + os.sep,)


# ------------------------------------------------------------------ inside the Daphne


class Recorder:
    """The project's functions entered while recording, in order, once each."""

    def __init__(self) -> None:
        self.on = False
        self.seen: dict[tuple[str, str], int] = {}

    def profile(self, frame, event, arg):  # noqa: ARG002 - sys.setprofile's signature
        if event != "call" or not self.on:
            return
        code = frame.f_code
        filename = code.co_filename
        if not filename.startswith(PROJECT_DIRS) or code.co_name in NOT_FUNCTIONS:
            return
        name = os.path.relpath(filename, ROOT)
        if filename.startswith(ENGINE):
            name, function = "games/engine/", "(the rules engine)"
        else:
            function = code.co_qualname
        key = (name, function)
        if key not in self.seen:
            self.seen[key] = len(self.seen)

    def start(self, *_args) -> None:
        self.seen = {}
        self.on = True

    def stop(self, *_args) -> None:
        self.on = False
        entered = sorted(self.seen, key=self.seen.get)
        Path(os.environ["MOVE_PATH_OUT"]).write_text(json.dumps(entered))


def serve(daphne_argv: list[str]) -> None:
    """Run the Daphne with the recorder in every thread it will start."""
    import runpy

    recorder = Recorder()
    threading.setprofile(recorder.profile)
    sys.setprofile(recorder.profile)
    signal.signal(signal.SIGUSR1, recorder.start)
    signal.signal(signal.SIGUSR2, recorder.stop)
    sys.argv = ["daphne", *daphne_argv]
    runpy.run_module("solitaire_site.daphne_server", run_name="__main__")


# ------------------------------------------------------------------ the race, from outside


async def one_move(base: str, pid: int, out: Path) -> list[tuple[str, str]]:
    import websockets

    from scripts.client import Browser
    from scripts.loadtest import create_race, join_race

    host, guest = Browser(base), Browser(base)
    code = await asyncio.to_thread(create_race, host, "penguin", 300, "Hosty")
    await asyncio.to_thread(join_race, guest, code, "Guesty")
    url = base.replace("http://", "ws://", 1) + f"/ws/race/{code}/"

    async def connect(browser):
        return await websockets.connect(
            url, origin=base, additional_headers={"Cookie": browser.cookie_header()}
        )

    host_ws, guest_ws = await connect(host), await connect(guest)

    async def until(ws, test, timeout=20.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
            if frame.get("type") == "error":
                raise RuntimeError(f"refused: {frame}")
            if test(frame):
                return frame

    await host_ws.send(json.dumps({"type": "start"}))
    board = await until(host_ws, lambda f: f["type"] == "state")
    await until(guest_ws, lambda f: f["type"] == "state")
    await asyncio.sleep(1.5)  # past the start's own live frame and its tick
    while True:  # nothing else in flight
        try:
            await asyncio.wait_for(guest_ws.recv(), 0.3)
        except TimeoutError:
            break
    # One move first, so the one measured finds everything made (the loop's writer, the relay).
    await host_ws.send(json.dumps({"type": "move", "move": board["legal"][0], "seq": 0}))
    board = await until(host_ws, lambda f: f["type"] == "ack")
    await until(guest_ws, lambda f: f["type"] == "progress" and f.get("event") is None)
    await asyncio.sleep(1.2)  # the next move's frame goes at once, not held for the tick
    os.kill(pid, signal.SIGUSR1)
    await asyncio.sleep(0.2)
    move = board["legal"][0]
    await host_ws.send(json.dumps({"type": "move", "move": move, "seq": board["seq"]}))
    await until(host_ws, lambda f: f["type"] == "ack")
    await until(guest_ws, lambda f: f["type"] == "progress" and f.get("event") is None)
    os.kill(pid, signal.SIGUSR2)
    for _ in range(100):
        if out.exists() and out.stat().st_size:
            break
        await asyncio.sleep(0.05)
    await host_ws.close()
    await guest_ws.close()
    return [tuple(pair) for pair in json.loads(out.read_text())]


def measure(database_url: str, redis_url: str) -> list[tuple[str, str]]:
    from scripts.servers import Daphne, create_database, free_port, migrate, server_env

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "entered.json"
        database_url = database_url or f"sqlite:///{tmp}/move_path.sqlite3"
        if database_url.startswith("postgres"):
            create_database(database_url, drop=True)
        env = server_env(
            database_url, redis_url, MOVE_PATH_OUT=str(out), BACKGROUND_WORKER="thread"
        )
        migrate(env)
        daphne = Daphne(free_port(), env, Path(tmp) / "daphne.log")
        daphne.launcher = [sys.executable, str(Path(__file__).resolve()), "--serve"]
        daphne.start()
        try:
            return asyncio.run(one_move(daphne.url, daphne.pid, out))
        finally:
            daphne.stop()


def report(entered: list[tuple[str, str]]) -> str:
    files: list[str] = []
    for name, _ in entered:
        if name not in files:
            files.append(name)
    functions = [(n, f) for n, f in entered if n != "games/engine/"]
    lines = [f"{len(files)} files, {len(functions)} functions (the engine counted as one place)"]
    lines.append("")
    lines.append("files, in the order first entered:")
    lines += [f"  {name}" for name in files]
    lines.append("")
    lines.append("functions, in the order first entered:")
    lines += [f"  {i:>3}. {name}: {function}" for i, (name, function) in enumerate(functions, 1)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="", help="default: a new SQLite file")
    parser.add_argument("--redis-url", default="", help="default: the in-memory layer")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    entered = measure(args.database_url, args.redis_url)
    if args.json:
        print(json.dumps({"entered": entered}, indent=1))
    else:
        print(report(entered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
