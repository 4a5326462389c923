"""Command line of the driver: `python -m xqdb_dask --local 2 --set default --tables DIR`."""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from .driver import CPU, MEMORY, build, load_plan


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="xqdb-dask",
        description="Generate and verify xqdb tables on a Dask cluster, one task per table.",
    )
    p.add_argument("materials", nargs="*", help="tables such as KRNKR (with every table they need)")
    p.add_argument("--set", dest="set_name", metavar="NAME", help="a named set (`xqdb sets`)")
    p.add_argument(
        "--tables", required=True, metavar="DIR", help="table folder shared by every worker"
    )
    p.add_argument(
        "--xqdb",
        default=shutil.which("xqdb") or "xqdb",
        help="the xqdb binary, at the same path on every worker (default: xqdb on PATH)",
    )
    p.add_argument("--rules", default="check-chase", choices=["check-chase", "none"])
    p.add_argument(
        "--threads", type=int, metavar="N", help="threads of each xqdb process (default: its cores)"
    )
    p.add_argument("--retries", type=int, default=2, help="retries of a failed task (default 2)")
    p.add_argument("--no-verify", action="store_true", help="skip `xqdb verify` after each table")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler")
    where.add_argument("--local", type=int, metavar="N", help="a LocalCluster of N worker processes")
    where.add_argument("--slurm", type=int, metavar="JOBS", help="SLURMCluster with JOBS jobs")
    p.add_argument(
        "--memory",
        metavar="BYTES",
        help="memory per worker (--local, --slurm): e.g. 20GiB (default: --local shares "
        "90%% of this machine's; --slurm requires it)",
    )
    p.add_argument("--cores", type=int, help="cores per Slurm job (default 2)", default=2)
    p.add_argument("--queue", help="Slurm partition")
    p.add_argument("--account", help="Slurm account")
    p.add_argument("--walltime", default="24:00:00", help="Slurm job time limit (default 24:00:00)")
    p.add_argument(
        "--slurm-directive",
        action="append",
        default=[],
        metavar="LINE",
        help="extra #SBATCH option, e.g. --slurm-directive=--constraint=bigmem (repeatable)",
    )
    p.add_argument(
        "--slurm-env",
        action="append",
        default=[],
        metavar="LINE",
        help="a shell line run before the worker in the job, e.g. 'source venv/bin/activate'",
    )
    p.add_argument(
        "--print-job-script",
        action="store_true",
        help="with --slurm: print the job script and exit without submitting",
    )
    p.add_argument(
        "--dashboard", default=":8787", help="dashboard address of a started cluster (:0 any port)"
    )
    a = p.parse_args(argv)
    if not a.materials and not a.set_name:
        p.error("name tables or --set NAME")
    return a


def parse_bytes(text: str) -> int:
    from dask.utils import parse_bytes as dask_parse

    return int(dask_parse(text))


def local_cluster(n: int, memory: int, threads: int, dashboard: str = ":8787"):
    """A LocalCluster of `n` worker processes of one task slot each, advertising `memory`
    bytes and `threads` cores."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address=dashboard,
        resources={MEMORY: memory, CPU: threads},
        memory_limit=0,  # the tables are built by xqdb processes, outside the worker's memory
    )


def slurm_cluster(a: argparse.Namespace, memory: int):
    """A dask-jobqueue SLURMCluster: one worker per job, with `a.cores` cores and `memory`."""
    from dask_jobqueue import SLURMCluster

    return SLURMCluster(
        cores=a.cores,
        processes=1,
        memory=f"{memory // 2**20}MiB",
        queue=a.queue,
        account=a.account,
        walltime=a.walltime,
        job_extra_directives=a.slurm_directive,
        job_script_prologue=a.slurm_env,
        # comma-separated: the job script does not quote arguments
        worker_extra_args=["--resources", f"{MEMORY}={memory},{CPU}={a.cores}"],
        scheduler_options={"dashboard_address": a.dashboard},
    )


def main(argv=None) -> int:
    a = parse_args(argv)
    from distributed import Client

    selection = list(a.materials) + (["--set", a.set_name] if a.set_name else [])
    plan = load_plan(a.xqdb, selection, a.rules)
    cluster = None
    threads = a.threads
    if a.local is not None:
        import psutil

        memory = (
            parse_bytes(a.memory)
            if a.memory
            else int(psutil.virtual_memory().total * 0.9 / a.local)
        )
        threads = threads or max(1, (os.cpu_count() or 1) // a.local)
        cluster = local_cluster(a.local, memory, threads, a.dashboard)
    elif a.slurm is not None:
        if not a.memory:
            print("error: --slurm needs --memory (per job)", file=sys.stderr)
            return 2
        threads = threads or a.cores
        cluster = slurm_cluster(a, parse_bytes(a.memory))
        if a.print_job_script:
            print(cluster.job_script())
            cluster.close()
            return 0
        cluster.scale(jobs=a.slurm)
    client = Client(cluster) if cluster is not None else Client(a.scheduler)
    try:
        if a.slurm is not None or a.scheduler:
            print(f"waiting for a worker (dashboard: {client.dashboard_link})", flush=True)
            client.wait_for_workers(1)
        summary = build(
            client,
            plan,
            xqdb=a.xqdb,
            tables=a.tables,
            threads=threads,
            verify=not a.no_verify,
            retries=a.retries,
            log=lambda s: print(s, flush=True),
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0 if summary.ok else 1


def main_exit() -> None:
    """Entry point of the `xqdb-dask` script."""
    sys.exit(main())
