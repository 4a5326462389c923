"""The driver on a LocalCluster of 2 worker processes (run by tests/dask.rs in `cargo test`,
or by hand: XQDB=target/release/xqdb XQDB_DASK_WORK=/tmp/w PYTHONPATH=contrib/dask python
contrib/dask/tests/test_local.py).

0. `--slurm ... --print-job-script` writes the job script; the dashboard is served.
1. The `default` set built by the cluster is byte-identical to `xqdb gen --default`.
2. Built again into an empty folder while one worker process is killed (SIGKILL) as it runs
   a table, the set still completes with every table verified (`xqdb verify` in each task)
   and byte-identical again; the killed table ran again on the other worker, resuming from
   the checkpoint its first run left in the shared folder (every safe point saves here:
   XQDB_CHECKPOINT_EVERY=1), and the killed worker's xqdb process did not outlive it.
3. A table that cannot be built (its sub-table missing) fails after its retry with xqdb's
   error, and so does the table that needs it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
from distributed import Client

from xqdb_dask.cli import local_cluster
from xqdb_dask.driver import build, load_plan

XQDB = os.environ["XQDB"]
WORK = Path(os.environ["XQDB_DASK_WORK"])


def log(s: str) -> None:
    print(s, flush=True)


def tables_in(folder: Path) -> list[str]:
    """The table files of a folder (`.xqw`, `.xqd`), after checking that no checkpoint, lock
    or temporary file of a killed run is left (the table's retry removes them); verification
    stamps (`.xqverified`) are not table files."""
    leftovers = sorted(
        p.name for p in folder.iterdir() if p.suffix in (".tmp", ".xqckpt", ".xqlock")
    )
    assert not leftovers, f"{folder}: files of a killed run left behind: {' '.join(leftovers)}"
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".xqw", ".xqd"))


def same_files(a: Path, b: Path) -> None:
    names_a = tables_in(a)
    names_b = tables_in(b)
    assert names_a == names_b, f"{a} has {names_a}, {b} has {names_b}"
    for n in names_a:
        assert (a / n).read_bytes() == (b / n).read_bytes(), f"{n} differs between {a} and {b}"


class Killer(threading.Thread):
    """Once `after` tables are in `folder`, SIGKILL the first worker process seen running an
    `xqdb gen` child whose table has a checkpoint in `folder`, and remember which."""

    def __init__(self, worker_pids: dict, folder: Path, after: int):
        super().__init__(daemon=True)
        self.worker_pids = worker_pids
        self.folder = folder
        self.after = after
        self.stop = threading.Event()
        self.killed = None  # (worker address, worker pid, xqdb pid, xqdb command line)
        self.checkpoint_left = False  # the killed table's checkpoint outlived its xqdb
        self.committed = False  # the killed table's WDL and DTM files were already there

    def run(self) -> None:
        while not self.stop.is_set():
            if len(list(self.folder.glob("*.xqd"))) >= self.after:
                for addr, pid in self.worker_pids.items():
                    try:
                        kids = [(k.pid, k.cmdline()) for k in psutil.Process(pid).children()]
                    except psutil.Error:
                        continue
                    gens = [
                        (k, cmd)
                        for k, cmd in kids
                        if "gen" in cmd
                        and (self.folder / f"{cmd[cmd.index('--no-deps') + 1]}.xqckpt").exists()
                    ]
                    if gens:
                        # what it runs is read before the kill: the child dies with it
                        os.kill(pid, signal.SIGKILL)
                        self.killed = (addr, pid, gens[0][0], gens[0][1])
                        cmd = gens[0][1]
                        ckpt = self.folder / f"{cmd[cmd.index('--no-deps') + 1]}.xqckpt"
                        for _ in range(1000):  # its end (it may stay a zombie)
                            try:
                                if psutil.Process(gens[0][0]).status() == psutil.STATUS_ZOMBIE:
                                    break
                            except psutil.NoSuchProcess:
                                break
                            time.sleep(0.005)
                        self.checkpoint_left = ckpt.exists()
                        # killed after the table's files were committed and before its
                        # checkpoint was removed: the retry finds the table, nothing to resume
                        name = cmd[cmd.index("--no-deps") + 1]
                        self.committed = all(
                            (self.folder / f"{name}.{ext}").exists() for ext in ("xqw", "xqd")
                        )
                        return
            time.sleep(0.002)


def main() -> int:
    start = time.monotonic()
    # checkpoints at every safe point (the workers inherit it), so that a killed table has one
    os.environ["XQDB_CHECKPOINT_EVERY"] = "1"
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    ref = WORK / "reference"
    t0 = time.monotonic()
    subprocess.run([XQDB, "gen", "--default", "--tables", str(ref), "-q"], check=True)
    local_seconds = time.monotonic() - t0
    plan = load_plan(XQDB, ["--set", "default"])
    assert len(plan["tables"]) == 49, len(plan["tables"])

    # the Slurm job a --slurm run would submit (no Slurm needed to write it)
    script = subprocess.run(
        [sys.executable, "-m", "xqdb_dask", "--slurm", "2", "--memory", "4GiB", "--cores", "2",
         "--queue", "bigmem", "--slurm-env", "source /x/venv/bin/activate",
         "--print-job-script", "--set", "default", "--tables", str(WORK / "slurm"),
         "--xqdb", XQDB],
        capture_output=True, text=True, check=True,
    ).stdout
    for want in ["#SBATCH -p bigmem", "#SBATCH --cpus-per-task=2", "#SBATCH --mem=4G",
                 "source /x/venv/bin/activate", "--resources MEMORY=4294967296,CPU=2"]:
        assert want in script, f"{want!r} not in the job script:\n{script}"
    log("the Slurm job script asks for the cores and memory and advertises them")

    cluster = local_cluster(2, memory=2**30, threads=1, dashboard=":0")
    client = Client(cluster)
    try:
        # the dashboard the driver points to is served
        with urllib.request.urlopen(client.dashboard_link, timeout=30) as r:
            assert r.status == 200, client.dashboard_link

        # 1. a plain run (generation only: verification is the second run's)
        out1 = WORK / "run1"
        s1 = build(client, plan, xqdb=XQDB, tables=str(out1), threads=1, verify=False, log=log)
        assert s1.ok, s1.text()
        assert len({r["pid"] for r in s1.done}) == 2, "both workers took tables"
        same_files(ref, out1)
        log(f"run 1: byte-identical to `xqdb gen --default` ({local_seconds:.1f} s locally)")

        # 2. one worker killed while it runs a table
        out2 = WORK / "run2"
        out2.mkdir()
        pids = client.run(os.getpid)
        killer = Killer(pids, out2, after=20)
        killer.start()
        s2 = build(client, plan, xqdb=XQDB, tables=str(out2), threads=1, log=log)
        killer.stop.set()
        killer.join()
        assert killer.killed is not None, "no worker was caught running a table"
        addr, wpid, gpid, cmd = killer.killed
        material = cmd[cmd.index("--no-deps") + 1]
        log(f"run 2: killed worker {addr} (pid {wpid}) while it ran {' '.join(cmd[1:4])}")
        assert s2.ok, s2.text()
        assert all(r["verify_seconds"] is not None for r in s2.done), "every table verified"
        redone = [r for r in s2.done if r["material"] == material]
        assert len(redone) == 1 and redone[0]["pid"] != wpid, redone
        # killed with a checkpoint in the folder: the retry resumed from it (unless the
        # killed run had just committed the table and removed its checkpoint)
        if killer.checkpoint_left and not killer.committed:
            said = redone[0]["resumed"]
            assert said and said.startswith(f"resuming {material} from checkpoint ("), redone
            log(f"run 2: the retry of {material} says: {said}")
        else:
            assert redone[0]["resumed"] is None, redone
            assert not (out2 / f"{material}.xqckpt").exists(), "a stale checkpoint was left"
            log(f"run 2: {material} was killed after its commit: nothing to resume")
        assert redone[0]["verify_seconds"] is not None
        # the killed worker's xqdb died with it (PR_SET_PDEATHSIG)
        for _ in range(500):
            try:
                if psutil.Process(gpid).status() == psutil.STATUS_ZOMBIE:
                    break
            except psutil.NoSuchProcess:
                break
            time.sleep(0.01)
        else:
            raise AssertionError(f"xqdb pid {gpid} outlived its killed worker")
        same_files(ref, out2)
        log(
            f"run 2: {material} ran again on pid {redone[0]['pid']}; every table verified "
            "(xqdb verify in its task), the set byte-identical"
        )

        # 3. a table that cannot be built fails after its retries, with xqdb's error, and
        #    the table that needs it is not attempted; the summary says so
        bad = {
            "rules": plan["rules"],
            "totals": {"positions": 0},
            "tables": [
                dict(next(t for t in plan["tables"] if t["material"] == "KRK"), deps=[]),
                next(t for t in plan["tables"] if t["material"] == "KRKR"),
            ],
        }
        s3 = build(client, bad, xqdb=XQDB, tables=str(WORK / "run3"), threads=1, retries=1, log=log)
        assert not s3.ok and set(s3.failed) == {"KRK", "KRKR"}, s3.text()
        assert "sub-table(s) missing" in s3.failed["KRK"] and "KK" in s3.failed["KRK"], s3.text()
        log("run 3: a table whose sub-table is missing fails with xqdb's error")
    finally:
        client.close()
        cluster.close()
    log(f"dask test: {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
