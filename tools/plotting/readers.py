"""Reading a dlsim output folder strictly: CSV rows checked against their header, numbers parsed
with the file and line named in every error, JSON files loaded whole. No matplotlib here: input
is checked before any plotting starts."""

import csv
import json
import math
import os



class InputError(Exception):
    """Bad input: one line naming the file (and line for CSV); tools/plot.py exits 2."""


class Row:
    """One CSV data row: its 1-based line number and its cells by column name."""

    def __init__(self, path, line, cells):
        self.path, self.line, self.cells = path, line, cells

    def text(self, column):
        """The raw cell, stripped."""
        return self.cells[column].strip()

    def number(self, column, allow_empty=True):
        """The cell as a float; None when empty and allowed. 'nan'/'inf' are accepted (a run
        that diverged writes them)."""
        text = self.text(column)
        if text == "":
            if allow_empty:
                return None
            raise InputError(f"{self.path}:{self.line}: column {column}: empty, expected a number")
        try:
            return float(text)
        except ValueError:
            raise InputError(
                f"{self.path}:{self.line}: column {column}: expected a number, got {text!r}"
            ) from None


def read_csv(path, required):
    """Header and rows of the CSV file at path. Every column in required must be present and
    every row must have as many cells as the header. Blank lines are skipped."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, strict=True)
            header = next(reader, None)
            if not header or all(h.strip() == "" for h in header):
                raise InputError(f"{path}:1: empty file, expected a header row")
            header = [h.strip() for h in header]
            _check_header(path, header, required)
            rows = []
            for cells in reader:
                if not cells or all(c.strip() == "" for c in cells) and len(cells) <= 1:
                    continue
                if len(cells) != len(header):
                    raise InputError(
                        f"{path}:{reader.line_num}: {len(cells)} cells, the header has"
                        f" {len(header)}"
                    )
                rows.append(Row(path, reader.line_num, dict(zip(header, cells))))
    except csv.Error as e:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV: {e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text: {e.reason}") from None
    if not rows:
        raise InputError(f"{path}:2: no data rows")
    return header, rows


def _check_header(path, header, required):
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise InputError(f"{path}:1: duplicate column {dup[0]!r}")
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}:1: missing column {missing[0]!r} in the header")


def read_json(path, required=True):
    """The JSON object in path; None when the file is absent and not required."""
    if not os.path.isfile(path):
        if required:
            raise InputError(f"{path}: no such file")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: malformed JSON: {e}") from None
    if not isinstance(value, dict):
        raise InputError(f"{path}: expected a JSON object")
    return value


def scenario_name(folder, fallback):
    """The "name" of folder/scenario.json, or fallback when the file or key is absent."""
    scenario = read_json(os.path.join(folder, "scenario.json"), required=False)
    name = scenario.get("name") if scenario else None
    return name if isinstance(name, str) and name else fallback


def is_number(value):
    return value is not None and math.isfinite(value)
