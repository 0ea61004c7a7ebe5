"""The match report in headless Chromium: the annotated video plays and the links seek it.

Like the scoreboard's browser tests (Debian's chromium + chromium-driver through Selenium):
outside CI a machine without the browser skips them with the reason; in CI (CI=true) a missing
browser fails them. A screenshot of the report is left in /tmp for a human to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from railbird.review.run import ReviewResult

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
    "--window-size=1280,1600",
)
SCREENSHOT = Path("/tmp/railbird-review-report.png")
WAIT_S = 20.0

pytestmark = pytest.mark.slow


def _browser_missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install selenium)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (path.exists() or shutil.which(path.name)):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def _require_browser() -> None:
    """Skip without a browser, except in CI (CI=true), where a missing browser fails."""
    missing = _browser_missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run in CI: {missing}")
        pytest.skip(missing)


@pytest.mark.parametrize(
    ("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)]
)
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch, ci: str, outcome) -> None:
    monkeypatch.setattr(f"{__name__}.CHROMEDRIVER", Path("/nonexistent/chromedriver"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="chromedriver is missing"):
        _require_browser()


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    _require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    # An explicit driver path: Selenium Manager must not download anything.
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    browser.set_script_timeout(WAIT_S)
    try:
        yield browser
    finally:
        browser.quit()


def _wait(driver, script: str, what: str):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(
            lambda d: d.execute_script(script)
        )
    except TimeoutException:
        raise AssertionError(f"the page never showed {what}") from None


def test_the_report_plays_the_video_and_a_link_seeks_it_to_the_shot(
    driver, reviewed: ReviewResult
) -> None:
    driver.get(reviewed.report.as_uri())
    video = "document.getElementById('match-video')"
    # readyState 1 (HAVE_METADATA) or more: Chromium decoded the MP4's header.
    _wait(driver, f"return {video}.readyState >= 1", "the video's metadata")
    duration = driver.execute_script(f"return {video}.duration")
    expected = reviewed.video_frames / 60.0
    assert duration == pytest.approx(expected, abs=0.05)
    assert driver.execute_script(f"return {video}.error") is None
    # Move away from the shot first, then follow the shot's link back to it.
    driver.execute_script(f"{video}.currentTime = {duration - 0.2}")
    _wait(driver, f"return !{video}.seeking && {video}.currentTime > {duration - 0.5}", "a seek")
    link = driver.find_element("css selector", "#timeline a.seek[data-shot='1']")
    target = float(link.get_attribute("data-time"))
    link.click()
    _wait(
        driver,
        f"return !{video}.seeking && Math.abs({video}.currentTime - {target}) < 0.05",
        f"the video at {target} s",
    )
    assert driver.execute_script(f"return {video}.readyState") >= 1
    # It plays: time moves on from the shot.
    driver.execute_script(f"{video}.muted = true; {video}.play();")
    _wait(driver, f"return {video}.currentTime > {target} + 0.2", "the video playing")
    rows = driver.find_elements("css selector", "#timeline tr.shot")
    assert len(rows) == len(reviewed.shots)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(SCREENSHOT))
