"""One citation type over one registry: every quoted number in the package is a ``sources.Cited``."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import specdec
from specdec.sources import SOURCES, Cited, Source

#: Every module of the core, the concept packages' private modules included (plots and widgets not).
CORE = sorted({m.name.removeprefix("specdec.") for m in pkgutil.walk_packages(specdec.__path__, "specdec.")
               if m.name.split(".")[1] not in ("plots", "widgets", "__main__")})


def _records(value, depth=0):
    """Cited records inside a module attribute: itself, or inside dicts, lists, tuples and dataclasses."""
    if isinstance(value, Cited):
        yield value
    elif depth < 4:
        if isinstance(value, dict):
            items = value.values()
        elif isinstance(value, (list, tuple)):
            items = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            items = [getattr(value, f.name) for f in dataclasses.fields(value)]
        else:
            return
        for item in items:
            yield from _records(item, depth + 1)


def _all_records():
    seen = {}
    for name in CORE:
        module = importlib.import_module(f"specdec.{name}")
        for attr, value in vars(module).items():
            if attr.startswith("__"):
                continue
            for record in _records(value):
                seen[id(record)] = (f"{name}.{attr}", record)
    return list(seen.values())


def test_the_package_quotes_many_numbers_and_each_is_the_one_type():
    records = _all_records()
    assert len(records) > 150            # literature, drafters, catalogue, timings, validation rows, ...
    for where, record in records:
        assert type(record) is Cited, where
        assert record.source in SOURCES, where


def test_no_second_citation_type_or_registry():
    """No module subclasses Cited, and no module keeps a dictionary of Sources besides SOURCES."""
    for name in CORE:
        module = importlib.import_module(f"specdec.{name}")
        for attr, value in vars(module).items():
            if isinstance(value, type) and value is not Cited:
                assert not issubclass(value, Cited), f"{name}.{attr}"
            if isinstance(value, dict) and value and value is not SOURCES:
                assert not all(isinstance(v, Source) for v in value.values()), f"{name}.{attr}"


def test_every_source_is_quoted_by_some_record():
    """A source nobody quotes is dead weight."""
    used = {record.source for _, record in _all_records()}
    assert set(SOURCES) - used == set()


def test_cited_refuses_an_unknown_source_or_status_by_name():
    with pytest.raises(ValueError, match="source must be a key of SOURCES"):
        Cited(1.0, "no-such-work", "Table 1", "verified")
    with pytest.raises(ValueError, match="status must be"):
        Cited(1.0, "leviathan2023", "Table 1", "checked")
