"""``kocka web`` measured in a real browser (headless Chromium), and its screenshots.

    python scripts/bench_web.py [--loads 30] [--hints 300] [--screenshots docs/]

Serves the page and the seat in this process on a free loopback port (the value tables
from the usual cache: ``kocka-solve build kockapoker`` first), then, in Chromium:

* page load: ``loadEventEnd`` of the Navigation Timing entry (request to the load event:
  the HTML, the stylesheet and the module), and the time until the page is usable (its
  ``hello`` answered), over ``--loads`` fresh loads;
* hint round trip: one ``rank`` request from the page's own ``fetch`` to the parsed
  answer (the kockapóker position 1 1 3 4 6 on an empty card, table loaded), and the
  link's load up to the hint table drawn;

prints median, 95th percentile and max in milliseconds. ``--screenshots DIR`` saves
``web-phone.png`` (360 px wide) and ``web-desktop.png`` (1280 px) of a three-player game
in its fifth round (seeded heuristic play, :func:`mid_game_link`) instead of measuring.
Targets (docs/TABLE.md): load < 200 ms, hint round trip < 30 ms. Not a test: times
depend on the machine; run it on a quiet one.
"""
from __future__ import annotations

import argparse
import base64
import json
import pathlib
import random
import shutil
import statistics
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.web import make_web_server
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.rules import get_game
from kocka.solver.store.table_store import game_from_cli, get_table

LINK = "/?game=kockapoker&dice=11346&roll=1"
SHOT_PLAYERS = ("Anna", "Béla", "me")


def mid_game_link(cache_dir: str | None, turns: int = 13, seed: int = 4) -> str:
    """A link to a three-player kockapóker game after ``turns`` turns of the heuristic
    agent on seeded dice, the next player's first throw made: what the screenshots show."""
    game = get_game("kockapoker", num_players=len(SHOT_PLAYERS))
    agent = make_agent("heuristic", game, 0, AgentOptions(cache_dir=cache_dir))
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        if game.is_chance_node(state):
            outcomes, weights = zip(*game.chance_outcomes(state))
            state = game.apply(state, rng.choices(outcomes, weights)[0])
            if sum(c.filled_count for c in state.cards) >= turns and state.throw == 1:
                break
        else:
            state = game.apply(state, agent.choose(state))
    body = json.dumps(game.state_to_json(state)["state"], separators=(",", ":")).encode()
    token = base64.urlsafe_b64encode(body).decode().rstrip("=")
    return "/?" + urllib.parse.urlencode({"game": "kockapoker", "state": token, "players": ",".join(SHOT_PLAYERS)})


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return f"{name:<34} n={len(values):<4} median {statistics.median(values):7.2f} ms   p95 {p95:7.2f} ms   max {values[-1]:7.2f} ms"


def browser(width: int, height: int) -> webdriver.Chrome:
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or "chromium"
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)


def screenshots(base: str, folder: pathlib.Path, cache_dir: str | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    shown_link = mid_game_link(cache_dir)
    for name, size in (("web-phone.png", (360, 1500)), ("web-desktop.png", (1280, 1250))):
        shot = browser(*size)
        try:
            if size[0] < 500:  # a desktop window cannot be this narrow: emulate the phone's screen
                shot.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": True})
            shot.get(base + shown_link)
            WebDriverWait(shot, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#advice li"))
            WebDriverWait(shot, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chart-svg, #chart p"))
            path = folder / name
            shot.save_screenshot(str(path))
            print(f"screenshot {path} ({size[0]} px wide)")
        finally:
            shot.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=30)
    parser.add_argument("--hints", type=int, default=300)
    parser.add_argument("--screenshots", type=pathlib.Path, default=None, metavar="DIR")
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()

    get_table(game_from_cli("kockapoker", ()), cache_dir=args.cache_dir)  # fails with the build command if missing
    server = make_web_server(Seat(SeatOptions(cache_dir=args.cache_dir)), "127.0.0.1:0", request_timeout=30)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = server.url.rstrip("/")
    if args.screenshots is not None:
        try:
            screenshots(base, args.screenshots, args.cache_dir)
        finally:
            server.shutdown()
            server.server_close()
        return 0
    driver = browser(360, 780)
    try:
        wait = WebDriverWait(driver, 60)
        driver.get(base + LINK)  # warm: the table is loaded by the seat's first rank
        wait.until(lambda d: d.execute_script("return window.kockaHintShownAt"))
        loads, ready = [], []
        for _ in range(args.loads):
            driver.get(base + "/?fresh=" + str(time.perf_counter()))
            wait.until(lambda d: d.execute_script("return window.kockaReadyAt"))
            nav = driver.execute_script("const n = performance.getEntriesByType('navigation')[0]; return [n.loadEventEnd, n.startTime];")
            loads.append(nav[0] - nav[1])
            ready.append(driver.execute_script("return window.kockaReadyAt"))
        shown = []
        for _ in range(max(1, args.loads // 3)):
            driver.get(base + LINK + "&fresh=" + str(time.perf_counter()))
            wait.until(lambda d: d.execute_script("return window.kockaHintShownAt"))
            shown.append(driver.execute_script("return window.kockaHintShownAt"))
        # the last page's chart is computed by now (else its forward pass would share the CPU with the hints)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#chart-svg, #chart p"))
        trips = driver.execute_async_script("""
            const [n, done] = arguments;
            (async () => {
            const doc = await (await fetch('/', {method: 'POST', headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({method: 'new', game: 'kockapoker'})})).json();
            const rolled = await (await fetch('/', {method: 'POST', headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({method: 'apply', state: doc.result.state, outcome: [1, 1, 3, 4, 6]})})).json();
            const body = JSON.stringify({method: 'rank', state: rolled.result.state});
            const times = [];
            for (let i = 0; i < n; i++) {
              const t0 = performance.now();
              const answer = await (await fetch('/', {method: 'POST', headers: {'Content-Type': 'application/json'}, body})).json();
              if (!answer.result) { done(['error', JSON.stringify(answer)]); return; }
              times.push(performance.now() - t0);
            }
            done(times);
            })().catch((err) => done(['error', String(err)]));
        """, args.hints)
        if trips and trips[0] == "error":
            print(f"rank failed: {trips[1]}", file=sys.stderr)
            return 1
        print(f"kocka web on {base}, Chromium {driver.capabilities.get('browserVersion')}")
        print(summary("page load (loadEventEnd)", loads))
        print(summary("page usable (hello answered)", ready))
        print(summary("link to hint table drawn", shown))
        print(summary("hint round trip (rank, fetch)", trips))
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
