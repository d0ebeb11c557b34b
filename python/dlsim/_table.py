"""A CSV file of an output folder (metrics.csv, sweep.csv) as a dict of column -> numpy array:
float64 for columns whose every cell is a number or empty (NaN), otherwise an array of str."""

import csv

import numpy as np


class Table(dict):
    """Column name -> numpy array, in the file's column order; .path is the file read."""

    def __init__(self, columns, path):
        super().__init__(columns)
        self.path = path

    def to_pandas(self):
        import pandas  # optional: only this method needs it

        return pandas.DataFrame(dict(self))


def _column(cells):
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells], dtype=np.float64)
    except ValueError:
        return np.array(cells, dtype=str)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return Table({name: _column([r[i] for r in body]) for i, name in enumerate(header)}, path)
