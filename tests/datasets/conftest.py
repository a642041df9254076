"""Fixtures for the scene generator's tests: a stand-in art module with one findable ink."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

STANDIN_NAME = "blitzcam_tests_standin_art"


def load_standin_art() -> ModuleType:
    """tests/datasets/standin_art.py, importable by name (also in forked worker processes)."""
    if STANDIN_NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            STANDIN_NAME, Path(__file__).with_name("standin_art.py")
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[STANDIN_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[STANDIN_NAME]


@pytest.fixture(scope="session")
def standin_art() -> ModuleType:
    return load_standin_art()
