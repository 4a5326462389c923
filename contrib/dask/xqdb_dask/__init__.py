"""Generate xqdb tablebases on a Dask cluster (local, Slurm via dask-jobqueue, or any
running scheduler): one task per table, with its sub-tables as dependencies."""

from .driver import CPU, MEMORY, Summary, TableFailed, build, load_plan, run_table

__all__ = ["CPU", "MEMORY", "Summary", "TableFailed", "build", "load_plan", "run_table"]
