"""Background jobs the dashboard starts: a command run as its own process, in its own session,
so it outlives the page (closing or reloading it) and the Streamlit session that started it.

A job's record lives in a folder beside the store (``<db>.jobs/job-<n>.json``): its command, the
process id and start time (so a reused pid is not mistaken for it), the paths of its status
file and log, and what the page needs to describe it (``meta``). The command writes its own
progress into the status file (JSON, replaced atomically); ``job_state`` reads it and checks that
the process still lives: a job whose process is gone while its status still says ``running``
(or never said anything) is ``failed``, with its log's last line. One job runs per store at a
time: a second start is refused (``JobRefused``, one line naming the running one), under a lock
file so two pages starting at once cannot both pass the check."""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

FINISHED = ("decided", "undecided", "failed", "done", "stopped")


class JobRefused(Exception):
    """A job cannot start now (one line)."""


@dataclass
class Job:
    id: int
    command: list[str]
    pid: int
    started: str | None  # the process's start time (field 22 of /proc/<pid>/stat)
    status_path: str
    log_path: str
    created_at: float
    meta: dict = field(default_factory=dict)
    stop_asked: bool = False
    stop_asked_at: float | None = None  # when ``stop`` asked (epoch seconds); the page says "stopping" until it ends

    @property
    def record(self) -> Path:
        return Path(self.status_path).with_name(f"job-{self.id}.json")


def jobs_folder(db: str | Path) -> Path:
    return Path(f"{db}.jobs")


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "start.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _write_json(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def process_started(pid: int) -> str | None:
    """The start time of a live process, None when there is none (a zombie counts as gone, and
    is reaped when it is ours)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # after the command name, which may hold spaces
    if fields[0] in ("Z", "X"):
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        return None
    return fields[19]


def alive(job: Job) -> bool:
    started = process_started(job.pid)
    return started is not None and (job.started is None or started == job.started)


def jobs(db: str | Path) -> list[Job]:
    """Every job of the store, newest first."""
    out = []
    for path in jobs_folder(db).glob("job-*.json"):
        doc = _read_json(path)
        if doc is not None:
            out.append(Job(**doc))
    return sorted(out, key=lambda j: j.id, reverse=True)


def last_line(path: str | Path) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 8192))
            lines = [x.strip() for x in fh.read().decode(errors="replace").splitlines() if x.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def stopping(job: Job, status: dict) -> bool:
    """A stop was asked and the process has not ended yet (``job_state`` still says ``running``:
    it holds the store until its chunks in flight finish, so no other job may start)."""
    return job.stop_asked and status.get("state") == "running"


def job_state(job: Job) -> dict:
    """The job's status file, with ``state`` corrected by what became of the process."""
    status = _read_json(Path(job.status_path)) or {"state": "running", "message": "starting"}
    state = status.get("state")
    if state in ("running", "failed") and job.stop_asked and not alive(job):
        return {**status, "state": "stopped", "message": "stopped from the dashboard"}
    if state == "running" and not alive(job):
        line = last_line(job.log_path)
        return {**status, "state": "failed",
                "message": f"the process ended without an answer: {line or 'its log is empty'}"}
    return status


def running(db: str | Path) -> Job | None:
    for job in jobs(db):
        if job_state(job).get("state") == "running":
            return job
    return None


def title(job: Job) -> str:
    """The job in words: its ``meta["title"]``, else its command."""
    return job.meta.get("title") or " ".join(job.command)


def start(db: str | Path, command: list[str], status_path: str | Path | None = None, meta: dict | None = None,
          env: dict | None = None, cwd: str | Path | None = None) -> Job:
    """Start ``command`` in the background (its own session; stdout and stderr to the job's log)
    and record it. Refused while another job of this store runs. ``status_path``: where the command
    writes its status (default: ``status-<n>.json`` in the jobs folder), where ``{status}`` in the
    command stands for it; ``meta["title"]`` words the job (in a refusal, on the page)."""
    folder = jobs_folder(db)
    with _locked(folder):
        busy = running(db)
        if busy is not None:
            raise JobRefused(f"another job is still running (job {busy.id}: {title(busy)}, process {busy.pid}); "
                             "wait for it to finish or stop it first")
        n = max((j.id for j in jobs(db)), default=0) + 1
        status = Path(status_path) if status_path else folder / f"status-{n}.json"
        log = folder / f"job-{n}.log"
        full = [str(status) if part == "{status}" else part for part in command]
        with open(log, "ab") as out:
            proc = subprocess.Popen([sys.executable, "-c", _CTRL_C_AS_A_TERMINAL, *full], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, env=env, cwd=cwd)
        job = Job(n, full, proc.pid, process_started(proc.pid), str(status), str(log), time.time(), meta or {})
        _write_json(job.record, asdict(job))
    return job


# A job starts as a small interpreter that gives SIGINT its default disposition and execs the
# command (the pid stays the job's). Why: an ignored SIGINT is inherited, so a dashboard started
# with it ignored (`nohup workbench dashboard &`, a script's background job) passed that on, and
# `stop`'s Ctrl-C reached jobs that ignored it. exec keeps a default disposition, and Python then
# turns SIGINT into KeyboardInterrupt as it does under a terminal.
_CTRL_C_AS_A_TERMINAL = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                         "os.execvp(sys.argv[1], sys.argv[1:])")


def stop(job: Job) -> None:
    """Ask the job's process to stop as Ctrl-C would (its own id only); the record remembers it
    and when (``stop_asked_at``: the chunks in flight finish before the process ends)."""
    if alive(job):
        job.stop_asked = True
        job.stop_asked_at = time.time()
        _write_json(job.record, asdict(job))
        try:
            os.kill(job.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
