"""Headless Chromium through Selenium and Debian's chromedriver: no download, no network."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .site import ARTIFACTS

INSTALL = "apt-get update && apt-get install -y chromium chromium-driver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def find_chromium() -> tuple[str, str]:
    """Chromium and its driver, or a failure naming what is missing and how to install it (the
    browser tests are marked `browser`; `make test-fast` leaves them out)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = " and ".join(
            name for name, path in (("chromium", browser), ("chromedriver", driver)) if path is None
        )
        pytest.fail(
            f"{missing} not installed; the browser tests need Debian's packages: {INSTALL}",
            pytrace=False,
        )
    return browser, driver


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium WebDriver with a fresh profile, closed afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_chromium()
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never download
    profile = tempfile.mkdtemp(prefix="argmatrix-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(driver: Any, name: str) -> Path:
    """Keep what the page looked like under tests/artifacts/ (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def wait_for(driver: Any, script: str, timeout: float = 20) -> Any:
    """Poll a JavaScript expression until it is truthy; return its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: d.execute_script(f"return {script}"))
