"""Shared fixtures and the markers that follow from them.

A test that drives Chromium (the ``browser`` or ``chromium`` fixture) is marked ``browser``; a
test under ``tests/engines/test_dask_engine.py`` is marked ``dask``: ``-m 'not browser'`` or
``-m 'not dask'`` then leaves them out while working, and CI runs everything.
"""

from __future__ import annotations

import pytest

from tests.support.browser import browser, chromium  # noqa: F401  (fixtures for the browser tests)

_BROWSER_FIXTURES = {"browser", "chromium"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        if item.path.name == "test_dask_engine.py":
            item.add_marker(pytest.mark.dask)
