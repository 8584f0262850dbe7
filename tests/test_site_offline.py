"""The built site works from a folder: opened as site/index.html (a file:// address), with
no web server and no network, its links open pages and its search finds them.

A headless Chromium reads the site that tests/conftest.py builds once for the session,
the way a student who was handed the folder would: it follows links from the home page
to a lesson, a tutorial and the API reference, and types a query into the search box.
Its proxy is an address where nothing listens, so a page that needed the network (the
search worker's shim from a CDN, say) would fail here as it would on a train.

The browser is Debian's `chromium`, driven through `chromedriver` by Selenium: both are
system packages (`apt-get install chromium chromium-driver`; .ci/run installs them when
they are missing). Without them the tests fail and say so: a skip would let a machine
without a browser pass the suite without ever checking that the site works from disk.
"""

import shutil
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser")  # Debian's name, then Ubuntu's
WINDOW = (1280, 800)  # a laptop's window: the page's text must fit its width
WAIT_S = 20  # an upper bound for a page or the search index to load; they take a second or two
INSTALL = (
    "the site's browser tests need Chromium and its WebDriver: on Debian or Ubuntu, "
    "`sudo apt-get install chromium chromium-driver` (.ci/run installs them in CI)"
)


def browser_and_driver():
    """The paths of the Chromium and chromedriver executables, or a test failure that says
    how to install them."""
    browser = next((shutil.which(name) for name in BROWSERS if shutil.which(name)), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = " and ".join(
            n for n, p in (("chromium", browser), ("chromedriver", driver)) if p is None
        )
        pytest.fail(f"{missing} not found on PATH: {INSTALL}", pytrace=False)
    return browser, driver


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium with a 1280x800 viewport and no network, for this module."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail(
            "selenium is not installed: it comes with the dev extra, pip install -e '.[dev]'",
            pytrace=False,
        )
    browser, driver_path = browser_and_driver()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
        "--disable-dev-shm-usage",  # containers give /dev/shm a few MB, too little for a renderer
        "--proxy-server=http://127.0.0.1:9",  # nothing listens on port 9: any network load fails
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):
        options.add_argument(arg)
    # The driver's path is given, so Selenium never runs its manager, which downloads drivers.
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    # the viewport itself, whatever room the headless window keeps for its frame
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False},
    )
    driver.set_page_load_timeout(WAIT_S)
    yield driver
    driver.quit()


def wait_for(driver, condition, what):
    """Wait until condition(driver) is true, or fail naming what did not happen."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT_S).until(condition)
    except TimeoutException:
        pytest.fail(f"{what}: not within {WAIT_S} s (at {driver.current_url})", pytrace=False)


def heading(driver):
    """The page's first heading, or '' (a directory listing has one too: "Index of ...")."""
    found = driver.find_elements("css selector", ".md-content h1")
    return found[0].text if found else ""


def follow(driver, href, expected_heading):
    """Click the navigation link to `href` (a page of the site, relative to its root) and
    check that the page it opens is that page, not a directory listing or an error."""
    links = driver.find_elements(
        "css selector", f'.md-sidebar--primary a.md-nav__link[href$="{href}"]'
    )
    if not links:
        shown = [
            a.get_attribute("href") for a in driver.find_elements("css selector", "a.md-nav__link")
        ][:5]
        pytest.fail(
            f"{driver.current_url}: no navigation link to {href}; its links are like {shown}",
            pytrace=False,
        )
    link = links[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    link.click()
    wait_for(
        driver, lambda d: d.current_url.endswith("/" + href), f"the link to {href} did not open it"
    )
    wait_for(
        driver, lambda d: heading(d) == expected_heading, f"{href}: no heading {expected_heading!r}"
    )


@pytest.mark.slow
def test_links_open_pages_from_a_folder(chromium, built_site):
    chromium.get(Path(built_site, "index.html").as_uri())
    assert heading(chromium) == "minigrad", f"the home page did not load: {chromium.current_url}"
    follow(chromium, "lessons/autograd.html", "Lesson 1: Autograd")
    follow(chromium, "tutorials/01_tensors_and_autograd.html", "01 · Tensors and autograd")
    # the notebook's download button points at the .ipynb beside the page
    download = chromium.find_element(
        "css selector", "a.md-content__button[download]"
    ).get_attribute("href")
    assert download.endswith("/tutorials/01_tensors_and_autograd.ipynb"), download
    assert Path(built_site, "tutorials", "01_tensors_and_autograd.ipynb").is_file()
    follow(chromium, "api/index.html", "API reference")


@pytest.mark.slow
def test_search_works_from_a_folder(chromium, built_site):
    chromium.get(Path(built_site, "api", "index.html").as_uri())
    box = chromium.find_element("css selector", "input.md-search__input")
    # the theme hides the search box where it cannot start a search worker
    assert box.is_displayed(), (
        "the search box is hidden: the search worker could not start (see the iframe-worker shim)"
    )
    box.click()  # the theme starts its search worker when the box first takes the focus
    meta = chromium.find_element("css selector", ".md-search-result__meta")
    # "Initializing search" until the worker has read the index (search/search_index.js)
    wait_for(
        chromium,
        lambda d: meta.get_attribute("textContent").strip() not in ("", "Initializing search"),
        "the search index did not load",
    )
    box.send_keys("topological")
    results = wait_for(
        chromium,
        lambda d: d.find_elements(
            "css selector", ".md-search-result__item a.md-search-result__link"
        ),
        "no search results for 'topological'",
    )
    pages = {a.get_attribute("href").split("#")[0] for a in results}
    autograd = Path(built_site, "lessons", "autograd.html").as_uri()
    assert autograd in pages, f"the autograd lesson is not among the results: {sorted(pages)}"
    next(a for a in results if a.get_attribute("href").split("#")[0] == autograd).click()
    wait_for(
        chromium,
        lambda d: heading(d) == "Lesson 1: Autograd",
        "the search result did not open the lesson",
    )


@pytest.mark.slow
def test_architecture_diagram_fits_a_1280_px_window(chromium, built_site):
    """Every code block of the architecture page (the layer diagram, the call's path) is
    read without scrolling sideways in a 1280x800 window, and so is the page."""
    chromium.get(Path(built_site, "architecture.html").as_uri())
    assert heading(chromium) == "Architecture: where things live", (
        f"the page did not load: {chromium.current_url}"
    )
    widths = chromium.execute_script(
        "return [...document.querySelectorAll('.md-content pre > code')]"
        ".map(c => [c.textContent.split('\\n')[0], c.scrollWidth, c.clientWidth])"
    )
    assert len(widths) >= 2, f"the diagrams are not on the page: {widths}"
    cut = [(first_line, scroll, shown) for first_line, scroll, shown in widths if scroll > shown]
    assert not cut, f"blocks wider than the window (first line, width, room): {cut}"
    page = chromium.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert page[0] <= page[1] == WINDOW[0], f"the page scrolls sideways: {page}"


@pytest.mark.slow
def test_lesson_listings_fit_a_1280_px_window(chromium, built_site):
    """A lesson's listing (a code block titled with its source file) is read without
    scrolling sideways in a 1280x800 window: the source's lines are at most 100 characters
    (tests/test_docs.py::test_listings_fit_the_page) and the page gives code the room for
    them (mkdocs.yml's toc.integrate: the contents go into the left sidebar)."""
    listings, cut = 0, []
    for page in sorted(Path(built_site, "lessons").glob("*.html")):
        chromium.get(page.as_uri())
        blocks = chromium.execute_script(
            "return [...document.querySelectorAll('.md-content .highlight')]"
            ".filter(h => h.querySelector('.filename') && h.querySelector('pre > code'))"
            ".map(h => [h.querySelector('.filename').textContent, h.querySelector('pre > code')])"
            ".map(([title, code]) => [title, code.scrollWidth, code.clientWidth])"
        )
        listings += len(blocks)
        cut += [(page.name, title, scroll, room) for title, scroll, room in blocks if scroll > room]
    assert listings >= 100, (
        f"only {listings} listings found on the lessons (did the markup change?)"
    )
    assert not cut, f"listings wider than the window (page, file, width, room): {cut}"
