"""Battles in batches: the unit of work that this process, local worker processes or a Dask
cluster run.

A `Fight` is everything one grid cell's battles need — the encounter as loaded, the party as
raised, the rules, the enemies and the AI profiles — with no file behind it, so it travels to
another machine whole. It is sent once per worker; the work itself is `Batch`es of a few dozen
battle indices. Battle i of a cell plays from `battle_seed(seed, cell, i)`, and results are put
back in index order, so the same seed gives the same results whatever ran them, in whatever order.
"""

from __future__ import annotations

# At the top only what `horizon --help` loads anyway: subcommands.py imports this module to build
# the command's arguments, so the engine, Dask and rich are imported by the functions that use them.

import gc
import hashlib
import math
import os
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import attrs

if TYPE_CHECKING:
    from horizon_tui.content.ai_profiles import AiProfiles
    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.encounters import EnemyDef
    from horizon_tui.engine.forming import PartyMember
    from horizon_tui.engine.encounter import EncounterSetup

MAX_RUNS = 1_000_000  # battles a command plays (per cell for a sweep): ~3½ h on one core; more is a slip


def check_counts(runs: int, workers: int | None) -> str | None:
    """Why `--runs` and `--workers` can't be played (a sentence for the command line), or None."""
    if runs < 1:
        return "--runs must be at least 1"
    if runs > MAX_RUNS:
        return f"--runs {runs:,}: at most {MAX_RUNS:,} (a million battles take hours on one core)"
    if workers is not None and workers < 1:
        return "--workers must be at least 1"
    return None


def local_workers(asked: int | None) -> tuple[int, str | None]:
    """Local worker processes for `--workers` (None: one per core), never more than the machine's
    cores: each is a whole Python with the rules loaded, so 1,000 would exhaust the memory. The
    second value is a notice when the number asked for was lowered."""
    cores = os.cpu_count() or 1
    if asked is None:
        return cores, None
    if asked > cores:
        return cores, f"--workers {asked}: this machine has {cores} cores; using {cores}"
    return asked, None


# One battle's result: (winner, rounds, party characters down at the end). Tuples, not objects:
# a sweep moves 10⁴–10⁶ of them between processes.
Played = tuple[str, int, int]
Progress = Callable[[int, int], None]  # (battles done, battles in all)
Stop = Callable[[], bool]  # asked between battles; True: stop (a cancelled background worker)


def battle_seed(seed: int, index: int, cell: str = "") -> int:
    """Battle `index`'s seed: a hash of the seed, the cell's name and the index, never of who
    runs it. With no cell it is `horizon simulate`'s seed for battle `index`."""
    text = f"{seed}/{index}" if not cell else f"{seed}/{cell}/{index}"
    digest = hashlib.blake2b(text.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


@attrs.frozen
class Fight:
    cell: str  # the cell's name in battle seeds ("" for `simulate`'s seeds)
    setup: EncounterSetup
    party: tuple[PartyMember, ...]
    catalogue: Catalogue
    enemies: dict[str, EnemyDef]
    profiles: AiProfiles

    def portable(self) -> Fight:
        """The same fight with a fresh battlefield: its sight and path caches hold tcod handles
        that don't pickle (and a worker builds its own)."""
        from horizon_tui.engine.battlefield import Battlefield

        battlefield = Battlefield(self.setup.battlefield.terrain.copy())
        return attrs.evolve(self, setup=attrs.evolve(self.setup, battlefield=battlefield))


@attrs.frozen
class Batch:
    fight: int  # index into the fights sent to the worker
    start: int  # battle indices start … stop - 1
    stop: int
    seed: int


def play(fight: Fight, index: int, seed: int) -> Played:
    """One battle of a fight, every side played by its AI."""
    from horizon_tui.engine.battle import PARTY, ident, presence
    from horizon_tui.engine.forming import create_battle
    from horizon_tui.engine.components import Presence
    from horizon_tui.engine.runner import play_out

    battle = create_battle(fight.setup, list(fight.party), battle_seed(seed, index, fight.cell), fight.catalogue,
                           fight.enemies, ai_profiles=fight.profiles)
    play_out(battle)
    assert battle.result is not None
    down = sum(
        1 for e in battle.combatants()
        if ident(e).base_team == PARTY and ident(e).kind == "character"
        and presence(e) in (Presence.unconscious, Presence.dead)
    )
    return battle.result.winner, battle.result.rounds, down


_local = threading.local()


def _own(fight: Fight) -> Fight:
    """This thread's copy of a fight: a battlefield's sight and path caches hold tcod pathfinders
    that two threads must not share (a Dask worker with several threads, or an app's live battle
    beside its background estimate), and results would then depend on timing."""
    mine: dict[int, tuple[Fight, Fight]] = _local.__dict__.setdefault("fights", {})
    found = mine.get(id(fight))
    if found is None or found[0] is not fight:
        if len(mine) > 64:
            mine.clear()
        found = mine[id(fight)] = (fight, fight.portable())
    return found[1]


def run_batch(fights: Sequence[Fight], batch: Batch) -> list[Played]:
    fight = _own(fights[batch.fight])
    return [play(fight, i, batch.seed) for i in range(batch.start, batch.stop)]


def batches(runs: Sequence[int], seed: int, size: int) -> list[Batch]:
    """Each fight's battles cut into batches of at most `size`, fight by fight."""
    return [Batch(f, start, min(start + size, n), seed)
            for f, n in enumerate(runs) for start in range(0, n, size)]


def batch_size(total: int, workers: int) -> int:
    """About four batches per worker (so a slow one doesn't hold the rest up), 1–25 battles each."""
    return max(1, min(25, math.ceil(total / (max(1, workers) * 4))))


# --- where the batches run -----------------------------------------------------------------------


def run_here(fights: Sequence[Fight], runs: Sequence[int], seed: int, on_progress: Progress | None = None,
             should_stop: Stop | None = None) -> list[list[Played]]:
    """In this process, battle by battle (a background thread of the app can stop it between two)."""
    total = sum(runs)
    done = 0
    results: list[list[Played]] = []
    for fight, n in zip(fights, runs):
        fight = _own(fight)
        played: list[Played] = []
        results.append(played)
        for index in range(n):
            if should_stop is not None and should_stop():
                return results
            played.append(play(fight, index, seed))
            done += 1
            if on_progress is not None:
                on_progress(done, total)
    return results


# Per worker process: the fights, sent once by the pool's initializer.
_fights: list[Fight] = []


def _init_worker(fights: list[Fight]) -> None:
    _fights[:] = fights
    # A worker only plays battles: each leaves a cycle of garbage and ~10⁵ short-lived objects.
    # Keep what is loaded out of the collector's sight and collect less often (as `simulate`).
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)


def _run_sent(batch: Batch) -> tuple[Batch, list[Played]]:
    return batch, run_batch(_fights, batch)


def run_processes(fights: Sequence[Fight], runs: Sequence[int], seed: int, workers: int,
                  on_progress: Progress | None = None, should_stop: Stop | None = None,
                  start_method: str | None = None) -> list[list[Played]]:
    """On `workers` local processes; the fights go to each once, then batches of indices.
    `start_method` "forkserver" from a process with threads (an app): forking one can deadlock."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    total = sum(runs)
    work = batches(runs, seed, batch_size(total, workers))
    sent = [f.portable() for f in fights]
    context = multiprocessing.get_context(start_method) if start_method else None
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(sent,), mp_context=context)

    def finished():
        pending = {pool.submit(_run_sent, b) for b in work}
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()

    try:
        collected = _gather(finished(), total, on_progress, should_stop)
    finally:  # stopped, interrupted (Ctrl-C) or done: batches not started are dropped, not waited for
        pool.shutdown(wait=True, cancel_futures=True)
    return _in_order(collected, runs)


def run_dask(fights: Sequence[Fight], runs: Sequence[int], seed: int, client: Any,
             on_progress: Progress | None = None, should_stop: Stop | None = None) -> list[list[Played]]:
    """On a Dask distributed cluster through `client` (a `distributed.Client`). The fights are
    scattered to every worker once; each task is one batch and returns its battles' tuples."""
    import uuid

    from distributed import as_completed

    total = sum(runs)
    workers = max(1, sum(client.nthreads().values()))
    work = batches(runs, seed, batch_size(total, workers))
    [shared] = client.scatter([[f.portable() for f in fights]], broadcast=True, hash=False)
    run = uuid.uuid4().hex[:12]  # task names of this run only (two sweeps may share a cluster)
    futures = {client.submit(run_batch, shared, b, key=f"horizon-battles-{run}-{b.fight}-{b.start}"): b
               for b in work}
    try:
        finished = ((futures[future], played) for future, played in as_completed(futures, with_results=True))
        collected = _gather(finished, total, on_progress, should_stop)
    finally:
        client.cancel(list(futures))
        client.cancel([shared])
    return _in_order(collected, runs)


def _gather(finished: Iterable[tuple[Batch, list[Played]]], total: int, on_progress: Progress | None,
            should_stop: Stop | None) -> dict[tuple[int, int], list[Played]]:
    """Batches' results as they finish, by (fight, first index); progress after each, and a stop."""
    collected: dict[tuple[int, int], list[Played]] = {}
    done = 0
    for batch, played in finished:
        collected[batch.fight, batch.start] = played
        done += len(played)
        if on_progress is not None:
            on_progress(done, total)
        if should_stop is not None and should_stop():
            break
    return collected


def _in_order(collected: dict[tuple[int, int], list[Played]], runs: Sequence[int]) -> list[list[Played]]:
    """Each fight's battles by index; a stopped run keeps the batches that finished from the first on."""
    results = []
    for f, n in enumerate(runs):
        played: list[Played] = []
        while len(played) < n and (f, len(played)) in collected:
            played += collected[f, len(played)]
        results.append(played)
    return results


PROBE_SECONDS = 10.0  # how long a scheduler has to say hello before a sweep gives up on it


def probe_scheduler(address: str) -> None:
    """A Dask scheduler greets each connection at once (a msgpack handshake naming its
    compression and pickle protocol). Dask's own client waits for ever on a peer that says
    nothing, and reads a web server's answer as a message of exabytes (MemoryError): refuse both
    here. OSError saying why; tcp:// only (tls:// is left to Dask)."""
    parts = urlsplit(address)
    if parts.scheme != "tcp" or not parts.hostname or parts.port is None:
        return
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=PROBE_SECONDS) as peer:
            peer.settimeout(PROBE_SECONDS)
            hello = b""
            while len(hello) < 64:
                chunk = peer.recv(64 - len(hello))
                if not chunk:
                    break
                hello += chunk
                if b"compression" in hello:
                    return
    except TimeoutError:
        raise OSError(f"not a Dask scheduler (no greeting in {PROBE_SECONDS:g} s)") from None
    raise OSError(f"not a Dask scheduler (it answered {hello[:24]!r})")


def execute(fights: Sequence[Fight], runs: Sequence[int], seed: int, *, workers: int = 1, scheduler: str | None = None,
            on_progress: Progress | None = None, should_stop: Stop | None = None,
            start_method: str | None = None) -> list[list[Played]]:
    """Each fight's battles by index: on the Dask cluster at `scheduler` (tcp://HOST:PORT), else
    on `workers` local processes (1: in this process)."""
    if scheduler is not None:
        from distributed import Client  # here: only a sweep on a cluster pays for importing Dask

        probe_scheduler(scheduler)
        with Client(scheduler, timeout="10s") as client:
            return run_dask(fights, runs, seed, client, on_progress, should_stop)
    if workers <= 1 or sum(runs) <= 1:
        return run_here(fights, runs, seed, on_progress, should_stop)
    return run_processes(fights, runs, seed, min(workers, sum(runs)), on_progress, should_stop, start_method)
