"""A stand-in for the one polars call ultralytics makes while training: read results.csv.

For the borrowed GPU machines (scripts/gpu_*.sh), where polars is not carried: its runtime
alone is 54 MB. Never on the development machine's path.
"""

import csv
import io
from pathlib import Path


def _value(text):
    try:
        return float(text)
    except ValueError:
        return text


class DataFrame:
    def __init__(self, rows, names):
        self._rows, self._names = rows, names

    def to_dict(self, as_series=True):
        return {name: [_value(row[name]) for row in self._rows] for name in self._names}


def read_csv(source, **_):
    text = source.decode() if isinstance(source, bytes) else Path(source).read_text()
    reader = csv.DictReader(io.StringIO(text))
    rows = list(reader)
    return DataFrame(rows, reader.fieldnames or [])
