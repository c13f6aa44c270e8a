"""Shared fixtures and the markers that follow from them.

A test that drives Chromium (the ``browser`` or ``chromium`` fixture) is marked ``browser``; a
test under ``tests/engines/test_dask_engine.py`` is marked ``dask``: ``-m 'not browser'`` or
``-m 'not dask'`` then leaves them out while working, and CI runs everything.
"""

from __future__ import annotations

import pytest

from tests.support.browser import browser, chromium  # noqa: F401  (fixtures for the browser tests)

_BROWSER_FIXTURES = {"browser", "chromium"}


@pytest.fixture
def without_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``session`` without its charts, for a test of what does not depend on them (the hand
    pages, the tables, the report's text): drawing them is most of a small session's time.
    The charts are drawn from the whole corpus (disputes included) by
    tests/present/test_dispute.py::test_session_writes_a_page_per_problem_hand and the
    session tests of tests/cli/, and looked at in tests/present/test_charts.py."""
    from ofc_audit.present import report

    monkeypatch.setattr(report, "render_charts", lambda *args, **kwargs: [])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        if item.path.name == "test_dask_engine.py":
            item.add_marker(pytest.mark.dask)
