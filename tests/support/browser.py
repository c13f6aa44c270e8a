"""Headless Chromium for the tests that look at pages as a person does.

Debian's ``chromium`` is driven by Playwright from PyPI (``executable_path``); Playwright's
own browser downloads do not work on these machines. Without a browser the tests skip with
the install command in the reason, except in CI (``CI`` set), where a missing browser fails
the run: browser tests must run there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

INSTALL = "apt-get install -y chromium && pip install playwright"


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Visit:
    """A page opened in the browser, with every console error and every request that was
    not for the page's own file."""

    page: Any
    console_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)

    def text(self) -> str:
        return str(self.page.inner_text("body"))


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(f"{reason}; install with: {INSTALL}")


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        _missing("no chromium on PATH")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


class Browser:
    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []

    def open(self, path: Path, width: int = 1400, height: int = 900) -> Visit:
        """Opens a local file; records console errors and any request that is not a
        ``file:`` URL under the page's own folder, ``data:`` or ``about:``."""
        context = self.browser.new_context(viewport={"width": width, "height": height})
        self.contexts.append(context)
        page = context.new_page()
        visit = Visit(page)
        folder = path.resolve().parent.as_uri()
        page.on("console", lambda m: visit.console_errors.append(m.text)
                if m.type == "error" else None)
        page.on("pageerror", lambda e: visit.console_errors.append(str(e)))

        def watch(request: Any) -> None:
            url = str(request.url)
            if not (url.startswith(folder) or url.startswith(("data:", "about:", "blob:"))):
                visit.outside_requests.append(url)

        page.on("request", watch)
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        return visit

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Browser]:
    b = Browser(chromium)
    yield b
    b.close()
