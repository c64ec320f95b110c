"""CPU and memory of the service's processes, read from /proc (Linux), for load runs.

A figure of server CPU per move is only worth quoting with its window and what else ran, so
the load generator samples the Daphnes (by pid), every `postgres` process and every
`redis-server` at the start and at the end of its play window, and reads the load average
before it begins.

A process counts its own CPU (utime + stime) and that of the children it has reaped (cutime +
cstime): a PostgreSQL backend whose connection closes during the window hands its CPU to the
postmaster, which is sampled too. So the sum over a group at the end minus the sum at the start
is the group's CPU in the window, whichever of its processes came or went in between.

The whole machine's busy time (/proc/stat: every core, all but idle and waiting for a disk) is
sampled too: what the groups leave out of it is what else ran (the kernel, a burner, another job).

`cores_used` turns two samples into cores a second by group, with the generator's own CPU
(`client_cpu_s`, from getrusage) and the machine's beside them: both load modes print it.

Each Daphne's main thread, where its event loop runs, is also read for its time on a core and
its time waiting for one (the kernel's schedstat): whether the moves waited for the machine.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SERVICES = {"postgres": "postgres", "redis": "redis-server"}
"""Group name → the process name (/proc/<pid>/comm) of every process in it."""


def cpu_seconds(pid: int) -> float | None:
    """The process's CPU time with its reaped children's, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # After "pid (comm) ", fields start at 3 (state): utime, stime, cutime, cstime are 14-17.
    fields = text[text.rindex(")") + 2 :].split()
    return sum(int(f) for f in fields[11:15]) / CLOCK_TICKS


def loop_thread_times(pid: int) -> tuple[float, float] | None:
    """The process's main thread, where a Daphne runs its event loop: (seconds it ran on a core,
    seconds it waited for one while ready to run), from /proc/<pid>/task/<pid>/schedstat; None
    if the process is gone or the kernel keeps no such figures. A wait for the interpreter lock
    is sleep, not a wait for a core: it is in neither."""
    try:
        text = (PROC / str(pid) / "task" / str(pid) / "schedstat").read_text()
    except OSError:
        return None
    ran_ns, waited_ns = (int(f) for f in text.split()[:2])
    return ran_ns / 1e9, waited_ns / 1e9


def rss_kb(pid: int) -> int | None:
    """The process's resident memory in kB (VmRSS), or None if it is gone."""
    try:
        lines = (PROC / str(pid) / "status").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def pids_named(name: str) -> list[int]:
    """Every process whose name is `name` (all users')."""
    pids = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    pids.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile
    return pids


def children_of(pids: list[int]) -> list[int]:
    """The processes whose parent is one of these (a Daphne's background worker)."""
    parents = set(pids)
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            if int(text[text.rindex(")") + 2 :].split()[1]) in parents:
                found.append(int(entry.name))
    return found


def machine_busy_s() -> float | None:
    """CPU seconds the whole machine has been busy since boot, over every core (None: no
    /proc/stat)."""
    try:
        fields = (PROC / "stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / CLOCK_TICKS


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    one, five, fifteen = (PROC / "loadavg").read_text().split()[:3]
    return float(one), float(five), float(fifteen)


def listening_pids(ports: list[int]) -> dict[int, int | None]:
    """The process listening on each TCP port (best effort: None when no socket listens there or
    its holder cannot be seen, e.g. another user's process without privileges).

    /proc/net/tcp{,6} give each listening socket's inode; the process holding that inode is
    found among /proc/*/fd."""
    inodes: dict[str, int] = {}
    for table in ("tcp", "tcp6"):
        try:
            rows = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            columns = row.split()
            port = int(columns[1].rsplit(":", 1)[1], 16)
            if columns[3] == "0A" and port in ports:  # 0A: LISTEN
                inodes[f"socket:[{columns[9]}]"] = port
    found: dict[int, int] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or len(found) == len(set(inodes.values())):
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                port = inodes.get(os.readlink(fd))
            except OSError:
                continue
            if port is not None:
                found.setdefault(port, int(entry.name))
    return {port: found.get(port) for port in ports}


@dataclass
class Sample:
    """CPU seconds per group at one moment (None: no such process), and the Daphnes' RSS."""

    at: float
    cpu: dict[str, float | None]
    rss_kb: dict[int, int | None] = field(default_factory=dict)
    loops: dict[int, tuple[float, float] | None] = field(default_factory=dict)
    """Each Daphne's event-loop thread: (seconds on a core, seconds waiting for one)."""
    machine: float | None = None
    """The whole machine's busy CPU seconds (`machine_busy_s`)."""


class ServerCpu:
    """Samples of the service's processes: the Daphnes given by pid, and every PostgreSQL and
    Redis process on the machine (shared ones too: the load average says what else ran)."""

    def __init__(self, daphne_pids: list[int]) -> None:
        self.daphne_pids = sorted(set(daphne_pids))

    def sample(self) -> Sample:
        cpu: dict[str, float | None] = {"daphne": self.total(self.daphne_pids)}
        cpu["worker"] = self.total(children_of(self.daphne_pids))
        for group, name in SERVICES.items():
            cpu[group] = self.total(pids_named(name))
        return Sample(
            time.perf_counter(),
            cpu,
            {pid: rss_kb(pid) for pid in self.daphne_pids},
            {pid: loop_thread_times(pid) for pid in self.daphne_pids},
            machine_busy_s(),
        )

    @staticmethod
    def total(pids: list[int]) -> float | None:
        seconds = [s for s in map(cpu_seconds, pids) if s is not None]
        return sum(seconds) if seconds else None

    @staticmethod
    def event_loops(start: Sample, end: Sample) -> dict[str, float] | None:
        """The Daphnes' event-loop threads between two samples, each on average, in seconds a
        second: `running` on a core, `waiting` for one (ready to run, every core taken). Every
        frame that comes in while its loop waits is answered that much later (None: no Daphne
        known, or the kernel keeps no such figures)."""
        seconds = end.at - start.at
        pairs = [
            (start.loops.get(pid), after)
            for pid, after in end.loops.items()
            if after is not None and start.loops.get(pid) is not None
        ]
        if not pairs or seconds <= 0:
            return None
        ran = sum(after[0] - before[0] for before, after in pairs) / len(pairs) / seconds
        waited = sum(after[1] - before[1] for before, after in pairs) / len(pairs) / seconds
        return {"running": round(ran, 2), "waiting": round(waited, 2)}

    @staticmethod
    def event_loops_text(loops: dict[str, float] | None) -> str:
        """`event_loops` in words, for a run's printout."""
        if loops is None:
            return "the Daphnes' event-loop threads: not measured"
        return (
            f"the Daphnes' event-loop threads, each (seconds a second): on a core "
            f"{loops['running']}, waiting for one {loops['waiting']}"
        )

    @staticmethod
    def per_move(start: Sample, end: Sample, moves: int) -> dict[str, float | None]:
        """Milliseconds of CPU per move in the window, per group and in all (None: unknown, or
        no such process; the total is None unless the Daphnes are known)."""
        figures: dict[str, float | None] = {}
        for group in ("daphne", *SERVICES):
            before, after = start.cpu.get(group), end.cpu.get(group)
            if before is None or after is None or moves <= 0:
                figures[group] = None
            else:
                figures[group] = round(max(0.0, after - before) * 1000 / moves, 2)
        known = figures["daphne"] is not None
        parts = [v for v in figures.values() if v is not None]
        return {"total": round(sum(parts), 2) if known else None, **figures}


def cores_used(start: Sample, end: Sample, client_s: float) -> dict[str, float | None]:
    """Each group's CPU over the run, in cores (CPU seconds a second): where the machine went;
    `machine`, the whole machine's busy cores (of its two), everything included."""
    seconds = end.at - start.at
    cores: dict[str, float | None] = {}
    for group, before in start.cpu.items():
        after = end.cpu.get(group)
        if before is None and after is not None and group == "worker":
            before = 0.0  # the servers' workers start on first use, during the run
        known = before is not None and after is not None and seconds > 0
        cores[group] = round(max(0.0, after - before) / seconds, 2) if known else None
    cores["client"] = round(client_s / seconds, 2) if seconds > 0 else None
    known = start.machine is not None and end.machine is not None and seconds > 0
    cores["machine"] = round((end.machine - start.machine) / seconds, 2) if known else None
    return cores


def client_cpu_s() -> float:
    """This process's own CPU seconds (the generator's), user and system."""
    return sum(resource.getrusage(resource.RUSAGE_SELF)[:2])


def cores_text(cores: dict[str, float | None]) -> str:
    """`cores_used` for a run's printout: `daphne 1.09, worker 0.08, ...`."""
    return ", ".join(f"{group} {used}" for group, used in cores.items())
