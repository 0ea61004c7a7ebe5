"""Test-wide policy: tests that need a real device run only when asked for."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A marker expression replaces addopts' `-m`, so `pytest -m 'not slow'` would silently pull
    # the real-camera tests back in; skipping here holds whatever -m says, unless it names them.
    if "hardware" in (config.option.markexpr or ""):
        return
    needs_device = pytest.mark.skip(reason="needs a real device: run with `pytest -m hardware`")
    for item in items:
        if item.get_closest_marker("hardware"):
            item.add_marker(needs_device)
