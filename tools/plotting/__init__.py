"""Drawing for tools/plot.py: readers and data (no matplotlib), then the figures of a run and
of a sweep."""
