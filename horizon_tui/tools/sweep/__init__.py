"""`horizon sweep`: many battles over a grid of encounters × party level × party
size, on local processes or a Dask cluster, with ratings written back into encounter files."""
