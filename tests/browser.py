"""Headless Chromium for the browser tests (Debian's chromium + chromium-driver, via Selenium).

Outside CI a machine without the browser skips them with the reason; in CI (CI=true) a missing
browser fails them, so they can never pass by not running.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install selenium)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (path.exists() or shutil.which(path.name)):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def require_browser() -> None:
    """Skip without a browser, except in CI (CI=true), where a missing browser fails."""
    missing = browser_missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI: {missing}")
        pytest.skip(missing)


@contextmanager
def chromium(window: tuple[int, int], wait_s: float, *flags: str) -> Iterator[object]:
    """A headless Chromium driven by Selenium, quit on leaving."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--window-size={window[0]},{window[1]}", *flags):
        options.add_argument(flag)
    # An explicit driver path: Selenium Manager must not download anything.
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    browser.set_script_timeout(wait_s)
    try:
        yield browser
    finally:
        browser.quit()
