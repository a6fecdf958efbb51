"""The health pages in a real Chromium (pytest-playwright, Debian's chromium), as a person sees them: each
test runs at 1280 px (a laptop) and at 400 px (a phone). `--page-screenshots DIR` keeps a full-page
screenshot of every page looked at.

A test signs in by handing the browser the session cookie of a Django test client: the sign-in page has
its own tests.
"""

from pathlib import Path

import pytest

from tests.health.pages.browser.session import sign_in

WIDTHS = {"1280px": 1280, "400px": 400}


@pytest.fixture(params=list(WIDTHS.values()), ids=list(WIDTHS))
def width(request) -> int:
    return request.param


@pytest.fixture
def open_page(new_context, live_server, width, pytestconfig):
    """open_page(user, path, shot=None) -> a Page showing `path` at `width` px, signed in as `user`
    (None: anonymous). With `shot` and --page-screenshots, the page is saved as <shot>-<width>.png."""
    folder = pytestconfig.getoption("--page-screenshots")

    def open_(user, path: str, *, shot: str | None = None):
        context = new_context(viewport={"width": width, "height": 900}, base_url=live_server.url)
        sign_in(context, user, live_server.url)
        page = context.new_page()
        page.goto(path)
        if shot and folder:
            save(page, shot)
        return page

    def save(page, shot: str):
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(folder) / f"{shot}-{width}.png"), full_page=True)

    open_.save = save
    return open_


def overflow(page) -> int:
    """How many CSS pixels the page is wider than the window (0: no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def stacked(table) -> bool:
    """Whether a table shows each row as a block of cells one under another, as on phones (rather
    than side by side)."""
    first, second = (table.locator("tbody tr").first.locator("td").nth(i).bounding_box() for i in (0, 1))
    return second["y"] >= first["y"] + first["height"] - 1 and abs(second["x"] - first["x"]) < 1


def inside_window(page, locator) -> bool:
    """Whether every element `locator` finds that is shown lies within the window's width."""
    width = page.evaluate("window.innerWidth")
    boxes = [box for box in (element.bounding_box() for element in locator.all()) if box]
    return bool(boxes) and all(box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5 for box in boxes)
