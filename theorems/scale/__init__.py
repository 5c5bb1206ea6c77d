"""Running big: the executors (in process or dask.distributed) and the sweep cache."""
