"""Takes a screenshot of a page of ofc_audit (a report, a hand page) in headless Chromium,
as the README's images are made:

    python scripts/screenshot.py PAGE.html OUT.png [--width 1400] [--height 1000] [--at CSS]

``--at`` scrolls the first element the CSS selector finds to the top of the screen first.
Needs Playwright and a Chromium (``apt-get install -y chromium && pip install playwright``);
the page is opened from the disk, nothing else is loaded.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--at", metavar="CSS", help="scroll this element to the top first")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": args.width, "height": args.height})
        page.goto(args.page.resolve().as_uri())
        page.wait_for_load_state("load")
        if args.at:
            page.locator(args.at).first.evaluate("e => e.scrollIntoView()")
        page.screenshot(path=str(args.out))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
