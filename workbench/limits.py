"""How large the numbers a user types may be, and why: the store keeps match numbers and counts
in 32-bit INTEGER columns and seeds in 64-bit BIGINT ones, and a worker count past a few hundred
is a typo, not a machine. The CLI's options use these bounds (click refuses anything outside them
with one line); totals that several options make together are checked by ``check_total``."""
from __future__ import annotations

from workbench.errors import UserError

INT32_MAX = 2**31 - 1
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1   # BIGINT: runs.base_seed, matches.seed
MAX_WORKERS = 256
MAX_MATCHES = 100_000_000                  # per pairing (or campaign runs per crew)
MAX_CHUNK = 1_000_000
MAX_RUN_ID = INT32_MAX


def check_total(what: str, total: int, limit: int = INT32_MAX) -> int:
    """A product of options (matches x pairings, runs x crews x fights) the store can number."""
    if total > limit:
        raise UserError(f"{what} come to {total:,}, more than the store can number ({limit:,}); "
                        "ask for fewer")
    return total


def check_seed_span(seed: int, count: int) -> None:
    """Campaign runs use seeds ``seed .. seed + count - 1``: all of them must fit a BIGINT."""
    if seed + count - 1 > SEED_MAX:
        raise UserError(f"--seed {seed} plus {count:,} runs passes the largest seed the store keeps ({SEED_MAX})")


def check_cluster(address: str | None) -> str | None:
    """A ``--cluster`` value, checked before anything runs: ``local``, ``local:N`` (N worker
    processes, 1 to MAX_WORKERS) or a scheduler's ``[tcp://]host:port``, which must answer
    (``executors.check_scheduler``)."""
    if address is None:
        return None
    if address == "local":
        return address
    if address.startswith("local:"):
        n = address.split(":", 1)[1]
        if not n.isdigit() or not 1 <= int(n) <= MAX_WORKERS:
            raise UserError(f"--cluster {address!r}: local:N takes N worker processes from 1 to {MAX_WORKERS}")
        return address
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise UserError(f"--cluster {address!r}: give a scheduler address such as tcp://host:8786, or local[:N]")
    from workbench.executors import check_scheduler

    check_scheduler(address)
    return address
