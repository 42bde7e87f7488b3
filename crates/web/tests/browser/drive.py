#!/usr/bin/env python3
"""Drives headless Chromium through chromedriver's W3C WebDriver HTTP API (urllib only, no pip).

Usage: drive.py BASE_URL CHROMEDRIVER_URL ARTIFACT_DIR

Plays a Connect Four, a Gomoku and a Xiangqi game on the alphazero-rs page by clicking board
cells, waits for the engine's answer and its heatmap, asserts on the DOM, and saves
screenshots into ARTIFACT_DIR (always; plus failure.png and failure.html on failure).
Exit status 0 when every check passed.
"""

import base64
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
]
WAIT_S = 120.0

passed = 0


def check(cond, what):
    """Counts a passed check or raises with `what`."""
    global passed
    if not cond:
        raise AssertionError(what)
    passed += 1
    print(f"  ok: {what}", flush=True)


class WebDriver:
    """The few W3C WebDriver commands the test needs."""

    def __init__(self, url, user_data_dir):
        self.url = url.rstrip("/")
        caps = {
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                        "args": CHROMIUM_ARGS + [f"--user-data-dir={user_data_dir}"],
                    },
                }
            }
        }
        self.sid = None
        self.sid = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        if self.sid is not None and not path.startswith("/session/") and path != "/session":
            path = f"/session/{self.sid}{path}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=300) as resp:
                payload = json.loads(resp.read().decode() or "{}")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"webdriver {method} {path}: {e.code} {e.read().decode()[:500]}")
        return payload.get("value", payload)

    def get(self, url):
        self._call("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self._call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        v = self._call("POST", "/element", {"using": "css selector", "value": css})
        return v[ELEMENT_KEY]

    def click(self, css):
        self._call("POST", f"/element/{self.find(css)}/click", {})

    def screenshot(self, path):
        png = base64.b64decode(self._call("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        print(f"  screenshot: {path}", flush=True)

    def source(self):
        return self._call("GET", "/source")

    def quit(self):
        if self.sid:
            try:
                self._call("DELETE", f"/session/{self.sid}")
            except Exception as e:  # noqa: BLE001 - best effort at shutdown
                print(f"  (closing the browser session failed: {e})")


def wait_for(d, script, what, *args):
    """Polls a JS expression until it is truthy; fails after WAIT_S seconds."""
    deadline = time.monotonic() + WAIT_S
    while True:
        value = d.js(script, *args)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


IDLE = "return document.body.dataset.busy === 'false';"


def moves(d):
    return int(d.js("return Number(document.getElementById('board').dataset.moves || -1);"))


def wait_moves(d, n, what):
    wait_for(
        d,
        "return document.body.dataset.busy === 'false' && "
        "Number(document.getElementById('board').dataset.moves) === arguments[0];",
        what,
        n,
    )


def heat_cells(d):
    return d.js(
        "return [...document.querySelectorAll('#board .cell')]"
        ".filter(c => Number(c.dataset.heat) > 0).length;"
    )


def set_select(d, css, value):
    d.click(f"{css} option[value='{value}']")
    check(d.js(f"return document.querySelector(\"{css}\").value;") == value, f"{css} set to {value}")


def set_sims(d, n):
    d.js(
        "const s = document.getElementById('sims'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        n,
    )


def new_game(d, game, side, sims, **opts):
    set_select(d, "#game", game)
    if game == "gomoku":
        check(d.js("return !document.getElementById('gomoku-options').hidden;"), "gomoku options shown")
        set_select(d, "#size", str(opts["size"]))
        set_select(d, "#rule", opts["rule"])
    set_select(d, "#side", side)
    set_sims(d, sims)
    d.click("#new")
    wait_for(
        d,
        "return document.body.dataset.busy === 'false' && "
        "document.getElementById('board').dataset.game === arguments[0];",
        f"a new {game} board",
        game,
    )


def content(d, css):
    return d.js("const e = document.querySelector(arguments[0]); return e ? e.dataset.content : null;", css)


def connect4(d, art):
    print("connect4:", flush=True)
    new_game(d, "connect4", "first", 60)
    check(moves(d) == 0, "connect4 starts with no move")
    check(d.js("return document.querySelectorAll('#board .cell').length;") == 42, "42 cells")
    d.click("#cell-0-3")  # any cell of the centre column drops into it
    wait_moves(d, 2, "the engine's connect4 answer")
    check(content(d, "#cell-5-3") == "red", "human stone landed at the bottom of column 4")
    check(heat_cells(d) >= 2, "heatmap shown on several columns")
    check(d.js("return document.querySelectorAll('#top-moves tbody tr').length;") >= 2, "top moves listed")
    v = d.js("return document.getElementById('value-num').textContent;")
    check(v not in ("", "—") and -1.0 <= float(v) <= 1.0, f"value shown ({v})")
    check(d.js("return document.querySelectorAll('#moves li').length;") == 1, "move list has one row")
    check(d.js("return document.querySelectorAll('#board .cell.last').length;") == 1, "last move marked")
    d.click("#cell-2-0")
    wait_moves(d, 4, "the engine's second connect4 answer")
    reds = d.js(
        "return [...document.querySelectorAll('#board .cell[data-col=\"0\"]')]"
        ".filter(c => c.dataset.content === 'red').length;"
    )
    check(reds == 1, "second human stone in column 1")
    d.screenshot(os.path.join(art, "connect4.png"))
    d.click("#undo")
    wait_moves(d, 2, "undo back to the human's previous turn")
    check(d.js("return document.getElementById('error').hidden;"), "no error shown")
    href = d.js("return document.getElementById('record').getAttribute('href');")
    check(href.startswith("/api/record?session="), "record link points at the session")


def gomoku(d, art):
    print("gomoku:", flush=True)
    new_game(d, "gomoku", "second", 100, size=9, rule="freestyle")
    wait_moves(d, 1, "the engine's first gomoku move")
    # The empty board offers the centre 5x5 (c3..g7 on 9x9): the engine's first stone is one of them.
    blacks = d.js(
        "return [...document.querySelectorAll('#board .cell')]"
        ".filter(c => c.dataset.content === 'black').map(c => c.dataset.name);"
    )
    centre = {f"{c}{r}" for c in "cdefg" for r in range(3, 8)}
    check(len(blacks) == 1 and blacks[0] in centre, f"engine opened in the centre 5x5 ({blacks})")
    first = blacks[0]
    check(heat_cells(d) >= 1, "heatmap after the engine's move")
    check(d.js("return document.querySelectorAll('#board .cell').length;") == 81, "81 points")
    d.click(f"[data-name='{first}']")
    wait_for(d, "return !document.getElementById('error').hidden;", "an inline error for an occupied point")
    err = d.js("return document.getElementById('error').textContent;")
    check(first in err, f"error names the move ({err})")
    check(moves(d) == 1, "occupied point changed nothing")
    mine = "d4" if first != "d4" else "f6"
    d.click(f"[data-name='{mine}']")
    wait_moves(d, 3, "the engine's gomoku answer")
    check(content(d, f"[data-name='{mine}']") == "white", f"human stone on {mine}")
    check(d.js("return document.getElementById('error').hidden;"), "error cleared after a good move")
    check(heat_cells(d) >= 2, "heatmap spread over several points")
    d.screenshot(os.path.join(art, "gomoku.png"))


def xiangqi(d, art):
    print("xiangqi:", flush=True)
    new_game(d, "xiangqi", "first", 100)
    check(content(d, "[data-name='h2']") == "C", "red cannon on h2")
    d.click("[data-name='h2']")
    check(d.js("return document.querySelectorAll('#board .cell.target').length;") >= 5, "cannon targets shown")
    d.click("[data-name='e2']")
    wait_moves(d, 2, "the engine's xiangqi answer")
    check(content(d, "[data-name='e2']") == "C", "cannon moved to e2")
    check(heat_cells(d) >= 2, "destination heatmap shown")
    d.click("#heat-options input[value='from']")
    check(heat_cells(d) >= 1, "origin heatmap shown")
    d.screenshot(os.path.join(art, "xiangqi.png"))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    base, driver_url, art = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(art, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="alphazero-web-chromium-")
    d = WebDriver(driver_url, profile)
    try:
        d.get(base + "/")
        check(d.js("return document.title;").startswith("alphazero-rs"), "page title")
        check(d.js("return document.getElementById('board').dataset.ready;") == "false", "no board before a game")
        connect4(d, art)
        gomoku(d, art)
        xiangqi(d, art)
        print(f"{passed} passed, 0 failed", flush=True)
        return 0
    except Exception as e:  # noqa: BLE001 - report any failure with a screenshot
        print(f"FAILED: {e}", flush=True)
        try:
            d.screenshot(os.path.join(art, "failure.png"))
            with open(os.path.join(art, "failure.html"), "w") as f:
                f.write(d.source())
        except Exception as e2:  # noqa: BLE001
            print(f"  (could not save the failure screenshot: {e2})")
        print(f"{passed} passed, 1 failed", flush=True)
        return 1
    finally:
        d.quit()


if __name__ == "__main__":
    sys.exit(main())
