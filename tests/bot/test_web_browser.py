"""pokerbot web in a real browser: headless Debian chromium through chromedriver plays
full hands through the page (a fold, an all-in shown down, an illegal amount refused,
a reload mid-hand) against the server started by the command line. A screenshot of the
table is saved in test-artifacts/ (or $POKERBOT_TEST_ARTIFACTS)."""

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("aiohttp", reason="the web extra is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARTIFACTS = os.environ.get("POKERBOT_TEST_ARTIFACTS", "test-artifacts")
pytestmark = pytest.mark.timeout(300)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def web_server(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pokerbot.bot.cli", "web", "--strategy", "call", "--port", str(port),
         "--seed", "11", "--hands", "200", "--out", str(tmp_path / "sittings")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        assert proc.poll() is None, proc.stdout.read().decode()
        time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/", tmp_path / "sittings"
    proc.terminate()
    proc.wait(20)


@pytest.fixture
def browser():
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), (
        "Debian's chromium and chromium-driver are needed: scripts/setup --test installs them"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,950"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def text(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def my_turn(driver) -> bool:
    return text(driver, "notice") == "your turn" and driver.find_element(By.ID, "call").is_enabled()


def wait_my_turn(driver, timeout=30):
    WebDriverWait(driver, timeout).until(my_turn)


def hands_done(driver) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, "#history tbody tr"))


def press(driver, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def test_a_person_plays_full_hands_in_the_browser(web_server, browser):
    url, sittings = web_server
    browser.get(url)
    wait_my_turn(browser, 90)  # the bot starts first

    # an illegal amount: refused with the rules' range, nothing changes
    before = (text(browser, "hand-info"), text(browser, "betting"))
    amount = browser.find_element(By.ID, "amount")
    amount.clear()
    amount.send_keys("7")
    browser.find_element(By.ID, "raise").click()
    WebDriverWait(browser, 10).until(lambda d: "between" in text(d, "error"))
    assert (text(browser, "hand-info"), text(browser, "betting")) == before
    assert my_turn(browser)  # the decision is still open

    folded = shoved = reloaded = False
    while not (folded and shoved and reloaded and hands_done(browser) >= 5):
        wait_my_turn(browser)
        # the bot's cards stay hidden while a hand is in play
        assert all(
            "back" in c.get_attribute("class") for c in browser.find_elements(By.CSS_SELECTOR, "#bot-cards .card")
        )
        n = hands_done(browser)
        board = [c.get_attribute("data-card") for c in browser.find_elements(By.CSS_SELECTOR, "#board .card")]
        if not folded and browser.find_element(By.ID, "fold").is_enabled():
            press(browser, "f")
            folded = True
            WebDriverWait(browser, 30).until(lambda d, n=n: hands_done(d) > n)
            assert text(browser, "last-result").endswith(("lost 50", "lost 100"))
        elif not reloaded and any(board):
            browser.refresh()  # mid-hand, on the flop or later: the hand resumes
            wait_my_turn(browser)
            again = [c.get_attribute("data-card") for c in browser.find_elements(By.CSS_SELECTOR, "#board .card")]
            assert again == board and hands_done(browser) == n
            reloaded = True
        elif not shoved and folded and browser.find_element(By.ID, "raise").is_enabled():
            press(browser, "5")  # all-in
            press(browser, Keys.ENTER)
            shoved = True
            WebDriverWait(browser, 30).until(lambda d, n=n: hands_done(d) > n)
            row = browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")[0].text
            assert row.split()[-1] in ("+20,000", "-20,000", "+0") and "—" not in row  # shown down
            assert "bot showed" in text(browser, "last-result")
        else:
            press(browser, "c")
            time.sleep(0.2)
    os.makedirs(ARTIFACTS, exist_ok=True)
    browser.save_screenshot(os.path.join(ARTIFACTS, "web-table.png"))
    assert "mbb/hand" in text(browser, "result")
    logs = [p for p in os.listdir(sittings) if p.endswith(".log")]
    assert logs and sum(line.startswith("STATE:") for line in open(sittings / logs[0])) >= hands_done(browser)
