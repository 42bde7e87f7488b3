#!/usr/bin/env python3
"""Drives headless Chromium through chromedriver's W3C WebDriver HTTP API (urllib only, no pip).

Usage: drive.py BASE_URL CHROMEDRIVER_URL ARTIFACT_DIR

Plays a Connect Four, a Gomoku and a Xiangqi game on the alphazero-rs page by clicking board
cells (the page opens on a board, its value graph in view), waits for the engine's answer and
its heatmap, and exercises the analysis board: the
value graph (click), stepping with buttons and arrow keys, a continuous analysis of an earlier
position (progress, stop), a top move's line drawn on hover (numbered stones, Xiangqi arrows),
a move from an earlier position, renju forbidden points and a foul, the winning five and the
mating move highlighted with the reason in words, readable Xiangqi heat, the New-game form
after a reload, and every board whole in view in a 1280×800 window. Asserts on the DOM and
saves screenshots into ARTIFACT_DIR (always; plus failure.png and failure.html on failure).
No check depends on which move the engine picks. With $ALPHAZERO_WEB_EXPECT_MODEL set to a
network's file name (a server started with `serve --model FILE`), the Connect Four games must
be played by that file: the page names it.
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
        self.base = None
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

    def hover(self, css):
        """Moves the mouse onto the centre of the element."""
        el = self.find(css)
        self._call("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": {ELEMENT_KEY: el}, "x": 0, "y": 0}],
        }]})

    def key(self, name):
        """Presses and releases one key (ArrowLeft, ArrowRight, Home, End)."""
        code = {"ArrowLeft": "\ue012", "ArrowRight": "\ue014", "Home": "\ue011", "End": "\ue010"}[name]
        self._call("POST", "/actions", {"actions": [{
            "type": "key", "id": "keyboard",
            "actions": [{"type": "keyDown", "value": code}, {"type": "keyUp", "value": code}],
        }]})

    def screenshot(self, path):
        png = base64.b64decode(self._call("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        print(f"  screenshot: {path}", flush=True)

    def cdp(self, cmd, params):
        """A Chrome DevTools command through chromedriver (for the viewport's size)."""
        return self._call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": params})

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


def board_number(d, key):
    """The board's data-moves (moves in the game) or data-ply (the position on screen)."""
    return int(d.js("return Number(document.getElementById('board').dataset[arguments[0]] ?? -1);", key))


def wait_board(d, key, n, what):
    """Waits until the page is idle with the board's `key` number at `n`."""
    wait_for(
        d,
        "return document.body.dataset.busy === 'false' && "
        "Number(document.getElementById('board').dataset[arguments[0]]) === arguments[1];",
        what,
        key,
        n,
    )


def moves(d):
    return board_number(d, "moves")


def wait_moves(d, n, what):
    wait_board(d, "moves", n, what)


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


def new_game(d, game, side, sims, start="", graph=True, **opts):
    set_select(d, "#game", game)
    if game == "gomoku":
        check(d.js("return !document.getElementById('gomoku-options').hidden;"), "gomoku options shown")
        set_select(d, "#size", str(opts["size"]))
        set_select(d, "#rule", opts["rule"])
    set_select(d, "#side", side)
    set_sims(d, sims)
    d.js("document.getElementById('start').value = arguments[0];", start)
    # The page opens on a game already: wait for a new session, not just a board of the game.
    old = d.js("return session;")
    d.click("#new")
    wait_for(
        d,
        "return document.body.dataset.busy === 'false' && session !== arguments[1] && "
        "document.getElementById('board').dataset.game === arguments[0];",
        f"a new {game} board",
        game,
        old,
    )
    if graph:
        graph_in_view(d, f"{game} {opts.get('size', '')}")


def graph_in_view(d, what):
    """The value graph is in the window (the board is sized to leave room for it)."""
    bottom, height = d.js(
        "return [document.getElementById('graph').getBoundingClientRect().bottom, window.innerHeight];"
    )
    check(bottom <= height, f"value graph in view with the {what} board ({bottom:.0f} <= {height})")


def content(d, css):
    return d.js("const e = document.querySelector(arguments[0]); return e ? e.dataset.content : null;", css)


def ply(d):
    return board_number(d, "ply")


def wait_ply(d, n, what):
    wait_board(d, "ply", n, what)


def stones_on_board(d):
    return d.js("return [...document.querySelectorAll('#board .cell')].filter(c => c.dataset.content).length;")


def text(d, css):
    return d.js("return document.querySelector(arguments[0]).textContent;", css)


def analysis_board(d, art):
    """Connect Four after four plies: graph, stepping, continuous analysis, PV on hover, branching."""
    print("analysis board (connect4):", flush=True)
    n = moves(d)
    check(n == 4, "four plies to step through")
    before = d.js("return [...document.querySelectorAll('#moves .mv')].map(m => m.textContent);")
    points = int(d.js("return Number(document.getElementById('graph').dataset.points);"))
    check(points >= 2, f"value graph has a point per searched position ({points})")
    # The graph: a click on the point of ply 1 (the engine's first search) goes there.
    d.click("#graph circle[data-ply='1']")
    wait_ply(d, 1, "the graph click to reach ply 1")
    check(stones_on_board(d) == 1, "ply 1 shows one stone")
    check(moves(d) == 4, "viewing an earlier position keeps the whole game")
    check(d.js("return document.querySelector('#moves .mv.current').dataset.ply;") == "1", "move list marks ply 1")
    check(d.js("return document.querySelector('#graph circle.current') !== null;"), "graph marks the viewed ply")
    # Arrow keys and buttons.
    d.screenshot(os.path.join(art, "connect4-ply1.png"))
    d.key("ArrowRight")
    wait_ply(d, 2, "ArrowRight to ply 2")
    check(stones_on_board(d) == 2, "ply 2 shows two stones")
    d.key("ArrowLeft")
    wait_ply(d, 1, "ArrowLeft to ply 1")
    d.key("End")
    wait_ply(d, 4, "End to the last ply")
    d.key("Home")
    wait_ply(d, 0, "Home to the start")
    check(stones_on_board(d) == 0, "ply 0 is the empty board")
    check(d.js("return document.getElementById('nav-prev').disabled;"), "back is disabled at the start")
    d.click("#nav-last")
    wait_ply(d, 4, "the end button")
    d.click("#nav-prev")
    wait_ply(d, 3, "the back button")
    d.click("#nav-prev")
    wait_ply(d, 2, "the back button again")
    check("Move 2 of 4" in text(d, "#status"), "status says which move is on screen")
    # Continuous analysis of ply 2: it keeps growing until stopped (or its limit: the
    # evaluator without a network reaches 200,000 simulations in a fraction of a second).
    d.click("#analyse")
    wait_for(d, "return !document.getElementById('live').hidden;", "the continuous analysis to start")
    sims = "return Number(document.getElementById('analysis').dataset.simulations) || 0;"
    first = wait_for(d, sims, "a first analysis step")
    if d.js("return document.getElementById('live').dataset.running === 'true';"):
        wait_for(d, "return Number(document.getElementById('analysis').dataset.simulations) > arguments[0] || "
                 "document.getElementById('live').dataset.running === 'false';", "the analysis to grow", first)
        check(d.js(sims) > first, f"the page showed the analysis growing ({first} -> {d.js(sims)} simulations)")
    else:
        print(f"  (the analysis ended before the first poll: {text(d, '#live')})")
    check(d.js("return document.getElementById('analysis').dataset.ply;") == "2", "the analysis is of ply 2")
    check(ply(d) == 2 and moves(d) == 4, "analysing undid nothing")
    check(heat_cells(d) >= 2, "heatmap of the analysed position")
    # A top move's line on hover: numbered stones, the side to move (red) first.
    row = "#top-moves tbody tr:first-child"
    line = d.js("return document.querySelector(arguments[0]).title.replace('line: ', '').split(' ');", row)
    d.hover(row)
    wait_for(d, "return document.querySelectorAll('#board .pv-stone').length > 0;", "the PV stones on hover")
    steps = d.js("return [...document.querySelectorAll('#board .pv-stone')].map(s => [Number(s.dataset.step), s.className]);")
    check(sorted(n for n, _ in steps) == list(range(1, len(steps) + 1)), f"the line is numbered 1, 2, … ({steps})")
    check(len(steps) >= min(len(line), 2) and len(steps) <= 20, f"a numbered stone per move of the line ({line})")
    check(all(("red" if n % 2 else "yellow") in c for n, c in steps), "red (to move) and yellow alternate")
    d.screenshot(os.path.join(art, "connect4-analysis.png"))
    d.hover("#status")
    wait_for(d, "return document.querySelectorAll('#board .pv-stone').length === 0;", "the PV to go on mouse-out")
    if d.js("return document.getElementById('live').dataset.running === 'true';"):
        check(not d.js("return document.getElementById('stop').disabled;"), "stop button enabled while analysing")
        d.click("#stop")
        wait_for(d, "return document.getElementById('live').dataset.running === 'false';", "the analysis to stop")
        check("stopped" in text(d, "#live"), "the page says the analysis stopped")
        stopped = d.js(sims)
        time.sleep(1.0)
        d.click("#nav-next")
        wait_ply(d, 3, "a step forward after the stop")
        d.click("#nav-prev")
        wait_ply(d, 2, "and back")
        check(d.js(sims) == stopped, f"no simulation after the stop ({stopped} -> {d.js(sims)})")
    else:
        check("simulation limit" in text(d, "#live"), "the analysis ended at its simulation limit")
        print("  (the analysis reached its limit before the stop button: stop not exercised here)")
    check(points < int(d.js("return Number(document.getElementById('graph').dataset.points);")),
          "the analysed position joined the value graph")
    # A move from ply 2 drops plies 3 and 4; the engine answers at the new end.
    d.click("#cell-0-6")
    wait_moves(d, 4, "the engine's answer to a move from ply 2")
    after = d.js("return [...document.querySelectorAll('#moves .mv')].map(m => m.textContent);")
    check(after[:2] == before[:2] and after[2] == "7", f"the game branched at ply 2 ({before} -> {after})")
    check(ply(d) == 4, "the view follows the end again")


def connect4(d, art):
    print("connect4:", flush=True)
    new_game(d, "connect4", "first", 60)
    model = os.environ.get("ALPHAZERO_WEB_EXPECT_MODEL")
    if model:
        desc = text(d, "#engine-desc")
        check(f"engine: network {model} (" in desc and "shipped" not in desc,
              f"the page plays and names the --model file {model} ({desc})")
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
    analysis_board(d, art)
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

    # A five: black a1..d1 set up, the human completes it.
    new_game(d, "gomoku", "first", 20, start="a1 i9 b1 i8 c1 i7 d1 h9", size=9, rule="freestyle")
    wait_moves(d, 8, "the set-up position")
    d.click("[data-name='e1']")
    wait_for(d, "return document.getElementById('status').dataset.outcome === '1-0';", "the five to end the game")
    wins = d.js("return [...document.querySelectorAll('#board .cell.win')].map(c => c.dataset.name).sort();")
    check(wins == ["a1", "b1", "c1", "d1", "e1"], f"the five is highlighted ({wins})")
    check("five in a row with e1" in text(d, "#reason"), "the reason in words")
    d.screenshot(os.path.join(art, "gomoku-five.png"))

    # Renju: h8 is a double-three for black; playing it loses.
    new_game(d, "gomoku", "first", 20, start="f8 a1 g8 a3 h6 a5 h7 a7", size=15, rule="renju")
    wait_moves(d, 8, "the renju set-up")
    check(d.js("return document.querySelector(\"[data-name='h8']\").classList.contains('forbidden');"),
          "h8 marked forbidden")
    check("double-three" in d.js("return document.querySelector(\"[data-name='h8']\").title;"), "its kind named")
    check(d.js("return document.querySelectorAll('#board .foul').length;") >= 1, "a foul mark is drawn")
    d.screenshot(os.path.join(art, "renju-forbidden.png"))
    d.click("[data-name='h8']")
    wait_for(d, "return document.getElementById('status').dataset.outcome === '0-1';", "the foul to lose")
    reason = text(d, "#reason")
    check("double-three" in reason and "h8" in reason, f"the foul and its kind in words ({reason})")
    check(d.js("return document.querySelector(\"[data-name='h8']\").classList.contains('win');"),
          "the forbidden move is highlighted")
    d.screenshot(os.path.join(art, "renju-foul.png"))

    # After a reload the New-game form shows this game's settings, not the defaults.
    set_select(d, "#game", "connect4")
    d.get(d.base + "/")
    wait_for(d, "return document.getElementById('board').dataset.game === 'gomoku';", "the game after a reload")
    form = d.js("return ['game', 'size', 'rule', 'side', 'sims'].map(i => document.getElementById(i).value);")
    check(form == ["gomoku", "15", "renju", "first", "20"], f"the form shows the game on screen ({form})")
    check(text(d, "#sims-out") == "20", "the simulations label too")


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
    rings = d.js("return [...document.querySelectorAll('#board .cell.occupied .heat')].filter(h => h.style.boxShadow).length;")
    check(rings >= 1, f"heat on pieces drawn as rings around them ({rings})")
    want = d.js("return hanziRenders() ? 'hanzi' : 'letters';")
    check(d.js("return document.getElementById('piece-style').value;") == want,
          f"piece style {want} (letters when no font has the characters)")
    d.screenshot(os.path.join(art, "xiangqi.png"))
    # The engine's line as numbered arrows.
    d.hover("#top-moves tbody tr:first-child")
    wait_for(d, "return document.querySelectorAll('#board svg.pv-arrows g.pv-arrow').length > 0;", "PV arrows on hover")
    check(d.js("return document.querySelector('#board svg.pv-arrows g.pv-arrow').dataset.step;") == "1",
          "arrows are numbered from 1")
    d.screenshot(os.path.join(art, "xiangqi-pv.png"))
    d.hover("#status")

    # A mate in one from a FEN: the mating move and the mated general are highlighted.
    new_game(d, "xiangqi", "first", 20, start="4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    d.click("[data-name='b0']")
    d.click("[data-name='b9']")
    wait_for(d, "return document.getElementById('status').dataset.outcome === '1-0';", "the mate to end the game")
    wins = d.js("return [...document.querySelectorAll('#board .cell.win')].map(c => c.dataset.name).sort();")
    check(wins == ["b0", "b9", "e9"], f"mating move and mated general highlighted ({wins})")
    check("checkmate" in text(d, "#reason"), "the reason in words")
    d.screenshot(os.path.join(art, "xiangqi-mate.png"))


def board_fits_a_laptop_window(d, art):
    """In a 1280×800 browser window (a common laptop's) every game's board is whole in view
    without scrolling (it once started below the fold): with the window all page (1280×800,
    the value graph in view too) and with 110 px of it taken by tabs and address bar
    (1280×690)."""
    try:
        for width, height in [(1280, 800), (1280, 690)]:
            d.cdp("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            size = d.js("window.scrollTo(0, 0); return [window.innerWidth, window.innerHeight];")
            check(size == [width, height], f"the page is {width}×{height} ({size})")
            for game, opts in [("connect4", {}), ("gomoku", {"size": "15", "rule": "freestyle"}),
                               ("gomoku", {"size": "20", "rule": "freestyle"}), ("xiangqi", {})]:
                new_game(d, game, "first", 1, graph=height == 800, **opts)
                what = f"{game} {opts.get('size', '')}".strip()
                box = d.js("window.scrollTo(0, 0); const r = document.getElementById('board')"
                           ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];")
                check(box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height,
                      f"the whole {what} board in {width}×{height} without scrolling ({box})")
                d.screenshot(os.path.join(art, f"{width}x{height}-{what.replace(' ', '-')}.png"))
    finally:
        d.cdp("Emulation.clearDeviceMetricsOverride", {})


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    base, driver_url, art = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(art, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="alphazero-web-chromium-")
    d = WebDriver(driver_url, profile)
    d.base = base
    started = time.monotonic()
    try:
        d.get(base + "/")
        check(d.js("return document.title;").startswith("alphazero-rs"), "page title")
        # A first visit opens on a board (it used to say "choose a game" over an empty one),
        # with the value graph in view and one perspective, labelled, in the engine panel.
        wait_for(d, "return document.body.dataset.busy === 'false' && "
                 "document.getElementById('board').dataset.ready === 'true';", "a board on load")
        check(d.js("return document.getElementById('board').dataset.game;") == "connect4",
              "the page opens on a Connect Four board")
        check(d.js("return document.querySelectorAll('#board .cell').length;") == 42, "its 42 cells")
        graph_in_view(d, "first")
        check("engine" in text(d, "#top-moves thead") and "engine" in text(d, ".value-caption"),
              "the value bar and the Q column both say: from the engine's side")
        connect4(d, art)
        gomoku(d, art)
        xiangqi(d, art)
        board_fits_a_laptop_window(d, art)
        print(f"{passed} passed, 0 failed in {time.monotonic() - started:.0f} s", flush=True)
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
