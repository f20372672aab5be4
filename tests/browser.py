"""A real headless browser for the tests of pages: Debian's Chromium driven by Selenium.

Without Chromium (or Selenium) the tests skip and say why, unless they are required: in CI (`CI`
is `true`, as hosted CI sets it, or `$SJS_REQUIRE_DATA` is set, as `.ci/run` sets it) a missing
browser fails the test, so CI never passes by skipping it. `.ci/run` installs Chromium."""
import os
import shutil
from contextlib import contextmanager
from typing import Iterator, Optional

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver",)


def required() -> bool:
    """Whether a missing browser fails the test instead of skipping it."""
    return os.environ.get("CI", "").lower() == "true" or bool(os.environ.get("SJS_REQUIRE_DATA"))


def _first(names) -> Optional[str]:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def _missing(msg: str) -> None:
    msg += " (Debian: apt-get install chromium chromium-driver; pip install -e '.[test]')"
    if required():
        pytest.fail(msg)
    pytest.skip(msg)


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator["object"]:
    """A headless Chromium WebDriver that records the page's console."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed")
    browser, driver = _first(BROWSERS), _first(DRIVERS)
    if browser is None or driver is None:
        _missing(f"no {'Chromium' if browser is None else 'chromedriver'} on PATH")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(options=options, service=Service(driver))
    try:
        yield drv
    finally:
        drv.quit()
