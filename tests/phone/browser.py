"""Headless Chromium from Debian's packages, driven by Selenium through Debian's chromedriver.

`missing()` says what is not installed; the tests skip with that reason on a developer's machine and
fail under CI (CI=true), which installs them (.ci/run), as tests/platform/test_installer.py does.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# As the environment asks: no network of its own, no first-run work, a fresh profile every time.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")


def missing() -> str | None:
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install selenium, or apt install python3-selenium)"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (sudo apt install {package})"
    return None


def needs_chromium() -> pytest.MarkDecorator:
    """Skip where Chromium is missing, saying what to install; under CI a missing one fails instead."""
    reason = missing()
    return pytest.mark.skipif(reason is not None and os.environ.get("CI") != "true", reason=reason or "")


@contextmanager
def chromium(width: int = 412, height: int = 915) -> Iterator[Any]:
    """A headless Chromium the size of a phone's screen (in CSS pixels), closed afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        options = Options()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()
