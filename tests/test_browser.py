"""The browser tests' policy: they skip on a machine without a browser and fail in CI."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import browser


@pytest.mark.parametrize(
    ("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)]
)
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch, ci: str, outcome) -> None:
    monkeypatch.setattr(browser, "CHROMEDRIVER", Path("/nonexistent/chromedriver"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="chromedriver is missing"):
        browser.require_browser()
