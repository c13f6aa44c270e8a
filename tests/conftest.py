from tests.support.browser import browser, chromium  # noqa: F401  (fixtures for the browser tests)
