"""Run an xqdb generation plan on a Dask cluster: one task per table.

The plan (`xqdb plan --json`) lists the tables in generation order, each with its direct
sub-tables and its estimated peak memory. Each table becomes one Dask task whose arguments
are the futures of its sub-tables' tasks, so Dask's scheduler runs it only when they have
finished; the task requires its memory (and the cores it uses) as worker resources. The task
runs `xqdb gen --no-deps TABLE` then `xqdb verify TABLE` against a table folder that every
worker shares. Both commands are idempotent on that folder: a table whose files are already
whole is kept, so a retried or re-run task only does the work that is missing (and, once
`gen` resumes tables from checkpoints beside them, only the part of the table that is
missing). Nothing here schedules: Dask does.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable, Optional

# Worker resources a task asks for: its estimated peak memory in bytes, and the cores its
# `xqdb` process uses. Workers advertise them (`--resources "MEMORY=... CPU=..."`).
MEMORY = "MEMORY"
CPU = "CPU"


def load_plan(xqdb: str, selection: list[str], rules: str = "check-chase") -> dict:
    """The plan of `selection` (materials, or `--set NAME`) from `xqdb plan --json`."""
    cmd = [xqdb, "plan", "--json", "--rules", rules, *selection]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


class TableFailed(RuntimeError):
    """An `xqdb` command of one table exited with an error."""


def _pdeathsig() -> Optional[Callable[[], None]]:
    """On Linux, a function for `preexec_fn` that has the child killed when the worker dies
    (PR_SET_PDEATHSIG), so that a killed worker leaves no generator behind writing into the
    shared folder while the task runs again elsewhere. The C function is looked up here, in
    the worker, so that the child between fork and exec only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def set_it() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)

    return set_it


def _run(cmd: list[str]) -> tuple[float, str]:
    """Run one xqdb command; its wall seconds and its notices (standard error), or
    TableFailed with its error output."""
    start = time.monotonic()
    proc = subprocess.run(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_pdeathsig()
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-2000:]
        raise TableFailed(f"`{' '.join(cmd)}` exited with {proc.returncode}: {tail}")
    return time.monotonic() - start, proc.stderr or ""


def run_table(
    material: str,
    *deps: dict,
    xqdb: str,
    tables: str,
    rules: str,
    threads: Optional[int],
    verify: bool,
) -> dict:
    """The task of one table, on a worker: generate it alone (its sub-tables are in the
    folder: `deps` are their tasks' results, passed only so that Dask waits for them), then
    verify it. Returns what it did and where."""
    start = time.time()
    common = ["--tables", tables, "-q"]
    if threads:
        common += ["--threads", str(threads)]
    # not quiet: its notices say when it resumed from a checkpoint (of a task that died)
    gen_args = [a for a in common if a != "-q"]
    gen, notices = _run([xqdb, "gen", "--no-deps", material, "--rules", rules, *gen_args])
    resumed = next((l for l in notices.splitlines() if l.startswith("resuming ")), None)
    check = _run([xqdb, "verify", material, *common])[0] if verify else None
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        worker = None
    return {
        "material": material,
        "gen_seconds": gen,
        "resumed": resumed,
        "verify_seconds": check,
        "start": start,
        "end": time.time(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "worker": worker,
    }


@dataclass
class Summary:
    """What a build did."""

    tables: int = 0
    done: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    wall_seconds: float = 0.0
    worker_seconds: float = 0.0
    gen_seconds: float = 0.0
    verify_seconds: float = 0.0
    estimated_seconds: float = 0.0
    estimated_verify_seconds: float = 0.0
    verified: bool = True

    @property
    def ok(self) -> bool:
        return not self.failed and len(self.done) == self.tables

    def text(self) -> str:
        lines = [
            f"{len(self.done)} of {self.tables} tables built"
            f"{' and verified' if self.verified else ''}, "
            f"{len(self.failed)} failed; wall {self.wall_seconds:.1f} s, "
            f"worker-seconds {self.worker_seconds:.1f} "
            f"(xqdb gen {self.gen_seconds:.1f} s, verify {self.verify_seconds:.1f} s; "
            f"the plan estimated {self.estimated_seconds:.1f} s and "
            f"{self.estimated_verify_seconds:.1f} s)"
        ]
        for m, why in self.failed.items():
            lines.append(f"  failed {m}: {why}")
        return "\n".join(lines)


def worker_resources(client) -> dict:
    """The resources each worker of the cluster advertises, by address."""
    return {a: w.get("resources", {}) for a, w in client.scheduler_info()["workers"].items()}


def build(
    client,
    plan: dict,
    xqdb: str,
    tables: str,
    threads: Optional[int] = None,
    verify: bool = True,
    retries: int = 2,
    use_resources: Optional[bool] = None,
    log: Callable[[str], None] = print,
    on_result: Optional[Callable[[dict], None]] = None,
) -> Summary:
    """Submit one task per table of `plan` to `client`'s cluster and wait for them all.

    `tables` is the table folder as the workers see it (shared storage). Each task needs its
    sub-tables' tasks, its estimated peak memory (resource MEMORY, bytes: generation's or
    verification's, the larger) and `threads`
    cores (resource CPU) when the workers advertise these resources (`use_resources=None`:
    when every worker does). A failed task is retried `retries` times (a task whose worker
    dies is re-run by the scheduler besides). Returns the summary; failures are in it.
    """
    tables = os.path.abspath(tables)
    os.makedirs(tables, exist_ok=True)
    xqdb = os.path.abspath(xqdb) if os.path.sep in xqdb else xqdb
    res = worker_resources(client)
    if use_resources is None:
        use_resources = bool(res) and all(MEMORY in r and CPU in r for r in res.values())
        if not use_resources:
            log(
                "notice: the workers do not all advertise MEMORY and CPU resources: "
                "tasks are placed without regard to memory"
            )
    cpu = threads or 1

    def memory(t: dict) -> int:
        # the task's peak: generation's, or verification's when that is larger
        return max(t["peak_bytes"], t["verify_peak_bytes"]) if verify else t["peak_bytes"]

    if use_resources and res:
        biggest = max(r.get(MEMORY, 0) for r in res.values())
        too_big = [t for t in plan["tables"] if memory(t) > biggest]
        if too_big:
            names = " ".join(t["material"] for t in too_big[:10])
            raise ValueError(
                f"{len(too_big)} table(s) need more memory than any worker offers "
                f"({biggest / 2**30:.1f} GiB): {names}"
            )
    run_id = uuid.uuid4().hex[:8]
    futures = {}
    by_key = {}
    for t in plan["tables"]:
        m = t["material"]
        deps = [futures[d] for d in t["deps"]]
        kwargs = {}
        if use_resources:
            kwargs["resources"] = {MEMORY: memory(t), CPU: cpu}
        f = client.submit(
            run_table,
            m,
            *deps,
            xqdb=xqdb,
            tables=tables,
            rules=plan["rules"],
            threads=threads,
            verify=verify,
            key=f"xqdb-{m}-{run_id}",
            retries=retries,
            pure=False,
            **kwargs,
        )
        futures[m] = f
        by_key[f.key] = t
    summary = Summary(
        tables=len(plan["tables"]),
        estimated_seconds=sum(t["seconds"] for t in plan["tables"]),
        estimated_verify_seconds=sum(t["verify_seconds"] for t in plan["tables"]) if verify else 0.0,
        verified=verify,
    )
    log(
        f"{summary.tables} tables submitted ({plan['totals']['positions']} positions); "
        f"dashboard: {client.dashboard_link}"
    )
    from distributed import as_completed

    start = time.monotonic()
    for n, f in enumerate(as_completed(list(futures.values())), 1):
        t = by_key[f.key]
        m = t["material"]
        if f.status == "finished":
            r = f.result()
            summary.done.append(r)
            summary.worker_seconds += r["end"] - r["start"]
            summary.gen_seconds += r["gen_seconds"]
            summary.verify_seconds += r["verify_seconds"] or 0.0
            v = f", verify {r['verify_seconds']:.2f} s" if r["verify_seconds"] is not None else ""
            again = f" ({r['resumed']})" if r.get("resumed") else ""
            log(
                f"[{n}/{summary.tables}] {m}: gen {r['gen_seconds']:.2f} s{again} "
                f"(estimated {t['seconds']:.2f} s){v} on {r['host']} pid {r['pid']}"
            )
            if on_result:
                on_result(r)
        else:
            failed_deps = [d for d in t["deps"] if d in summary.failed]
            why = f"sub-table(s) failed: {' '.join(failed_deps)}" if failed_deps else str(f.exception())
            summary.failed[m] = why
            log(f"[{n}/{summary.tables}] {m}: FAILED: {why}")
    summary.wall_seconds = time.monotonic() - start
    log(summary.text())
    return summary
