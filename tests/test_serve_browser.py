"""`tavreli serve` in a real browser (headless Chromium, driven over the
DevTools protocol on a pipe: no extra package): a tournament plays into a
folder while the server serves it; the runs list shows the run with its
games count and the count grows in the same page (no reload); the run page
shows the standings and the LLR; a game opened in the viewer and stepped
with the arrow key to a ply where a tower stands shows the board of the
store's TFEN of that ply (read from the store with h5py, not through the
server), square by square.  Screenshots of the three pages are kept in
ARTIFACTS.  Exit 77 (skipped) without Chromium or h5py.
usage: test_serve_browser.py TAVRELI SOURCE_DIR ARTIFACTS_DIR"""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_common import Server, Tally, start_tournament, wait_for  # noqa: E402

try:
    import h5py
except ImportError:
    print("no h5py: skipped (Debian: apt-get install python3-h5py)")
    sys.exit(77)

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if not BROWSER:
    print("no chromium: skipped (Debian: apt-get install chromium)")
    sys.exit(77)


class Browser:
    """Chromium with --remote-debugging-pipe: commands are JSON texts ending
    in NUL, written to its fd 3; answers and events come the same way on its
    fd 4."""

    def __init__(self, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.ans_r, ans_w = os.pipe()
        args = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-proxy-server", "--window-size=1300,1000", f"--user-data-dir={profile}",
                "--remote-debugging-pipe", "about:blank"]
        self.p = subprocess.Popen(["bash", "-c", f'exec "$0" "$@" 3<&{cmd_r} 4>&{ans_w} {cmd_r}<&- {ans_w}>&-',
                                   *args], pass_fds=(cmd_r, ans_w), stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(profile, "..", "browser.log"), "w"))
        os.close(cmd_r)
        os.close(ans_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def call(self, method, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.ans_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser ended")
                self.buf += chunk
            text, self.buf = self.buf.split(b"\0", 1)
            m = json.loads(text)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            return None
        return r["result"].get("value")

    def open(self, url):
        self.call("Page.navigate", url=url)

    def key(self, key, code):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=code_of(key))

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return os.path.getsize(path)

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()


def code_of(key):
    return {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35}[key]


def tfen_board(tfen):
    """The board of a TFEN as {square: [token, ...]} with each stack top
    first and the moved mark ' left out (as the viewer's data-stack)."""
    board = {}
    ranks = tfen.split()[0].split("/")
    for r, text in enumerate(ranks):
        rank = 8 - r
        f, i = 0, 0

        def token():
            nonlocal i
            t = text[i]
            i += 1
            if t in "Pp" and i < len(text) and text[i].isalpha() and text[i].lower() != "p" and \
                    text[i].isupper() == t.isupper():
                t += text[i]
                i += 1
            while i < len(text) and text[i] in "~'":
                if text[i] == "~":
                    t += "~"
                i += 1
            return t

        while i < len(text):
            c = text[i]
            if c.isdigit():
                f += int(c)
                i += 1
            elif c == "(":
                i += 1
                stack = []
                while text[i] != ")":
                    stack.append(token())
                i += 1
                board[f"{'abcdefgh'[f]}{rank}"] = stack
                f += 1
            else:
                board[f"{'abcdefgh'[f]}{rank}"] = [token()]
                f += 1
    return board


def main():
    tavreli, src, artifacts = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(artifacts, exist_ok=True)
    t = Tally("test_serve_browser")
    tmp = tempfile.mkdtemp(prefix="tavreli-serve-browser-")
    runs = os.path.join(tmp, "results")
    os.makedirs(runs)
    os.makedirs(os.path.join(tmp, "profile"))
    tour = start_tournament(tavreli, src, runs, "live")
    server = browser = None
    try:
        if tour.poll() is not None:
            print(open(os.path.join(tmp, "live.log")).read())
        store = os.path.join(runs, "live.h5")
        server = Server(tavreli, runs)

        def games():
            status, d = server.json("/api/runs")
            run = next((r for r in (d or {}).get("runs", []) if r["id"] == "live.h5"), None)
            return run["games"] if run and run.get("games") else 0

        t.check("the tournament stores games while it runs", wait_for(lambda: games() >= 2), games())
        browser = Browser(os.path.join(tmp, "profile"))
        base = f"http://127.0.0.1:{server.port}"

        # the runs list, and the row growing in place
        browser.open(base + "/")
        row = 'document.querySelector(\'tr[data-run="live.h5"]\')'
        t.check("the runs list lists the run with its games count",
                wait_for(lambda: (browser.eval(f"{row} && Number({row}.dataset.games)") or 0) >= 2))
        opened = browser.eval(f"Number({row}.dataset.gamesOpened)") or 0
        browser.eval("window.__same_page = 1")
        grew = wait_for(lambda: (browser.eval(f"Number({row}.dataset.games)") or 0) > opened, step=0.5)
        t.check(f"the count grows in the page while the tournament plays ({opened} when opened)", grew)
        t.check("... without a reload", browser.eval("window.__same_page") == 1)
        t.check("the row says the run is running", browser.eval(f"{row}.dataset.state") == "running",
                browser.eval(f"{row}.dataset.state"))
        t.check("a screenshot of the runs list", browser.screenshot(os.path.join(artifacts, "runs.png")) > 20000)

        # the run page: standings and LLR
        browser.open(base + "/run?run=live.h5")
        t.check("the run page shows both engines' standings",
                wait_for(lambda: browser.eval("document.querySelectorAll('#standings tr[data-engine]').length") == 2))
        llr = wait_for(lambda: browser.eval("(document.querySelector('#llr') || {}).dataset?.llr"))
        t.check(f"the run page shows the LLR ({llr})", llr not in (None, "") and abs(float(llr)) < 3)
        t.check("the LLR path is drawn", browser.eval("document.querySelectorAll('#llr svg polyline, #llr svg path')"
                                                      ".length") not in (None, 0))
        t.check("the games table lists the games",
                wait_for(lambda: (browser.eval("document.querySelectorAll('#games tr[data-game]').length") or 0)
                         >= 2))
        t.check("a screenshot of the run page", browser.screenshot(os.path.join(artifacts, "run.png")) > 20000)

        # a game in the viewer, stepped to a ply where a tower stands
        def stored_towers():
            """(game, ply, TFEN) of the stored positions with a tower, read from the store itself"""
            with h5py.File(store, "r", libver="latest", swmr=True) as f:
                games_rows = f["games"][:]
                pos = f["positions"][:]
            done_games = {int(g["index"]) for g in games_rows}
            return [(int(p["game"]), int(p["ply"]), p["tfen"].decode().rstrip("\0")) for p in pos
                    if b"(" in p["tfen"].split(b" ")[0] and int(p["game"]) in done_games and 3 <= int(p["ply"]) <= 40]

        towers = wait_for(stored_towers, step=1.0)
        t.check("the store has a position with a tower", bool(towers))
        if towers:
            game, ply, tfen = towers[0]
            browser.open(f"{base}/game?run=live.h5&game={game}")
            # drawn: the game's positions have arrived (the keys are read from then on)
            t.check("the viewer opens at ply 0, its board drawn",
                    wait_for(lambda: browser.eval("document.querySelector('#ply')?.dataset.ply === '0' && "
                                                  "document.querySelectorAll('#board g[data-square]').length === 64 "
                                                  "&& document.querySelector('#tfen').textContent.trim() !== ''")))
            for _ in range(ply):
                browser.key("ArrowRight", "ArrowRight")
            t.check(f"stepping with the arrow key reaches ply {ply}",
                    wait_for(lambda: browser.eval("document.querySelector('#ply').dataset.ply") == str(ply)),
                    browser.eval("document.querySelector('#ply').dataset.ply"))
            shown = browser.eval("document.querySelector('#tfen').textContent.trim()")
            t.check("the viewer's TFEN is the store's of that ply", shown == tfen, f"{shown!r} vs {tfen!r}")
            stacks = browser.eval("Object.fromEntries([...document.querySelectorAll('#board g[data-square]')]"
                                  ".map(g => [g.dataset.square, g.dataset.stack]))") or {}
            want = tfen_board(tfen)
            t.check("the board has 64 squares", len(stacks) == 64, len(stacks))
            bad = [sq for sq in stacks if stacks[sq] != ",".join(want.get(sq, []))]
            t.check("every square shows the store's stack, top first", not bad,
                    ", ".join(f"{sq}: {stacks[sq]!r} vs {','.join(want.get(sq, []))!r}" for sq in bad[:5]))
            tall = [sq for sq, s in want.items() if len(s) > 1]
            t.check(f"a tower is drawn as a stack ({tall[0] if tall else '-'})",
                    bool(tall) and browser.eval(f"document.querySelector('#board g[data-square=\"{tall[0]}\"]')"
                                                ".querySelectorAll('rect, circle, text').length") > 2)
            t.check("a screenshot of the viewer", browser.screenshot(os.path.join(artifacts, "game.png")) > 20000)
    finally:
        if browser:
            browser.close()
        if server:
            code, _ = server.stop()
            t.check("the server ends with 0 on SIGTERM", code == 0, code)
        tour.send_signal(signal.SIGINT)
        try:
            tour.wait(timeout=120)
        except subprocess.TimeoutExpired:
            tour.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    t.finish()


if __name__ == "__main__":
    main()
