"""Test-wide policy: tests that need a real device run only when asked for; vision's compiled
loops are made ready once, before any test (the first run after a checkout compiles them, about
20 s, which must not land inside a test that times a live loop)."""

from __future__ import annotations

import pytest

from vision.warm import warm_up


@pytest.fixture(scope="session", autouse=True)
def _vision_loops_ready() -> None:
    warm_up()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A marker expression replaces addopts' `-m`, so `pytest -m 'not slow'` would silently pull
    # the real-camera tests back in; skipping here holds whatever -m says, unless it names them.
    if "hardware" in (config.option.markexpr or ""):
        return
    needs_device = pytest.mark.skip(reason="needs a real device: run with `pytest -m hardware`")
    for item in items:
        if item.get_closest_marker("hardware"):
            item.add_marker(needs_device)
