"""Take the README's screenshot of pokerbot web: start ``pokerbot web`` against a
strategy, play through the page in headless Debian chromium (calling, and betting the
pot on the flop) until a decision on the river, and save the page there.

    .venv/bin/python scripts/web_screenshot.py [--strategy libratus] [--out docs/images/web.png]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--strategy", default="libratus")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--out", default="docs/images/web.png")
    p.add_argument("--port", type=int, default=8731)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "pokerbot.bot.cli", "web", "--strategy", args.strategy, "--port", str(args.port),
             "--seed", str(args.seed), "--out", tmp],
        )  # fmt: skip
        try:
            for _ in range(300):
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", args.port)) == 0:
                        break
                time.sleep(0.2)
            options = webdriver.ChromeOptions()
            options.binary_location = "/usr/bin/chromium"
            for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
                options.add_argument(a)
            driver = webdriver.Chrome(service=webdriver.ChromeService("/usr/bin/chromedriver"), options=options)
            try:
                driver.get(f"http://127.0.0.1:{args.port}/")
                body = driver.find_element(By.TAG_NAME, "body")
                wait = WebDriverWait(driver, 120)
                for _ in range(400):
                    wait.until(lambda d: d.find_element(By.ID, "notice").text == "your turn")
                    cards = driver.find_elements(By.CSS_SELECTOR, "#board .card")
                    board = [c for c in cards if c.get_attribute("data-card")]
                    hands = len(driver.find_elements(By.CSS_SELECTOR, "#history tbody tr"))
                    if len(board) == 5 and hands >= 3:
                        break
                    if len(board) == 3 and driver.find_element(By.ID, "raise").is_enabled():
                        body.send_keys("3")
                        body.send_keys("r")
                    else:
                        body.send_keys("c")
                    time.sleep(0.3)
                os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
                driver.save_screenshot(args.out)
                print(f"saved {args.out}")
            finally:
                driver.quit()
        finally:
            server.terminate()
            server.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
