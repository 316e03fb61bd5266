"""The desk page in headless Chromium when a game has another version: the line at the top, the table's flag, the
two versions side by side in the table's view, the director's PIN and button; screenshots in artifacts/desk/."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, messages, two_versions  # noqa: E402
from test_desk_web import ARTIFACTS, _chrome, fits_a_phone  # noqa: E402

from kiosk.desk.message import parse  # noqa: E402


def _feed(desk, events, boot: str) -> None:
    with desk.lock:
        desk.tables.take_all(parse(ROOT, t, p) for t, p in messages(events, 1, game_id="r1_b1", boot=boot))


def test_the_director_takes_the_other_version_on_the_page(desk):
    first, fixed = two_versions()
    _feed(desk, first, "run-1")
    _feed(desk, fixed, "run-2")
    driver, profile = _chrome()
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))

    def text(css: str) -> str:
        return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css)

    try:
        driver.get(desk.url)
        wait.until(lambda d: "has another version" in text("#alerts p.version"))
        line = text("#alerts p.version")
        assert line.startswith("Game r1_b1 at table 1 has another version, which differs from event 11 (the judge's "
                               "adjustment) on: kiosk run 'run-2' sent it on table 1's channel at ")
        assert "The desk's version ends Ann 649 - Bob 671; the other ends Ann 639 - Bob 671." in line
        assert line.endswith("Open table 1")
        assert "other version" in text('.tile[data-board="1"] .flags')
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(ARTIFACTS / "desk_other_version.png"))

        driver.find_element(By.CSS_SELECTOR, "#alerts p.version button").click()
        wait.until(lambda d: d.find_element(By.ID, "versions").is_displayed())
        table = text("#versions table")
        assert table.splitlines() == ["\tThe desk's version\tThe other version", "Players\tAnn - Bob\tAnn - Bob",
                                      "Scores\t649 - 671\t639 - 671", "Events\t79\t80 (other from event 11)"]
        assert driver.save_screenshot(str(ARTIFACTS / "desk_other_version_detail.png"))
        driver.find_element(By.ID, "take-pin").send_keys("1357")
        driver.find_element(By.CSS_SELECTOR, "#take-buttons button").click()
        wait.until(lambda d: text("#take-msg") == "Wrong director PIN.")
        driver.find_element(By.ID, "take-pin").clear()
        driver.find_element(By.ID, "take-pin").send_keys("2468")
        driver.find_element(By.CSS_SELECTOR, "#take-buttons button").click()
        wait.until(lambda d: text("#take-msg").startswith("Game r1_b1 at table 1 is now the version kiosk run "
                                                          "'run-2' sent: Ann 639 - Bob 671. The director took it at "))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#versions .ver"))
        assert "639" in text("#detail-players") and driver.save_screenshot(str(ARTIFACTS / "desk_version_taken.png"))
        driver.find_element(By.ID, "close").click()
        wait.until(lambda d: "replaced by the director at" in text('.tile[data-board="1"] .flags'))
        assert "Final 639 - 671" in text('.tile[data-board="1"]') and not text("#alerts p.version")

        _feed(desk, two_versions(points=-5)[1], "run-3")   # one more: on a phone the line and the view still fit
        driver.set_window_size(390, 844)
        wait.until(lambda d: "has another version" in text("#alerts p.version"))
        driver.find_element(By.CSS_SELECTOR, "#alerts p.version button").click()
        wait.until(lambda d: d.find_element(By.ID, "versions").is_displayed())
        fits_a_phone(driver, "desk_other_version_phone.png")
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
