"""The match report in headless Chromium: the annotated video plays and the links seek it.

Like the scoreboard's browser tests (Debian's chromium + chromium-driver through Selenium):
outside CI a machine without the browser skips them with the reason; in CI (CI=true) a missing
browser fails them. A screenshot of the report is left in /tmp for a human to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from railbird.review.run import ReviewResult
from tests.browser import chromium

SCREENSHOT = Path("/tmp/railbird-review-report.png")
WAIT_S = 20.0

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    with chromium((1280, 1600), WAIT_S, "--autoplay-policy=no-user-gesture-required") as browser:
        yield browser


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
