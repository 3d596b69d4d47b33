"""What `tavreli serve` refuses and survives: paths out of its folder ('..',
'%2e%2e' encoded, absolute paths, a symbolic link out of the folder), every
method that writes (POST, PUT, DELETE), a store that is not one (garbage, a
store cut short) and one that disappears, many clients at once (10,000
requests over 50 connections with its memory flat afterwards), bad
options; and SIGINT and SIGTERM end it with 0 and its cache removed.
usage: test_serve_refusals.py TAVRELI SOURCE_DIR [--sanitized]"""
import concurrent.futures
import glob
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_common import Server, Tally, start_tournament, wait_for  # noqa: E402


def main():
    tavreli, src = sys.argv[1], sys.argv[2]
    sanitized = "--sanitized" in sys.argv[3:]
    t = Tally("test_serve_refusals")
    tmp = tempfile.mkdtemp(prefix="tavreli-serve-refusals-")
    os.environ["TMPDIR"] = tmp  # where the server makes its cache
    runs = os.path.join(tmp, "results")
    os.makedirs(os.path.join(runs, "sub"))
    # an empty folder (no run yet): an empty list
    empty = os.path.join(tmp, "empty", "results")
    os.makedirs(empty)
    s = Server(tavreli, empty)
    status, d = s.json("/api/runs")
    t.check("an empty folder: an empty runs list", status == 200 and d["runs"] == [], (status, d))
    code, _ = s.stop()
    t.check("... and the server ends with 0", code == 0, code)

    # a real store, a few games
    ini = os.path.join(tmp, "t.ini")
    engine = os.path.join(os.path.abspath(src), "configs", "engines", "handset.ini")
    with open(ini, "w") as f:
        f.write(f"[tournament]\nname = t\npairs = 3\nseed = 5\nthreads = 1\n\n"
                f"[engine a]\npath = {engine}\ndepth = 2\n\n[engine b]\npath = {engine}\ndepth = 1\n")
    r = subprocess.run([tavreli, "selfplay", ini, "--out", os.path.join(runs, "good.h5"), "--quiet"],
                       capture_output=True, text=True)
    t.check("a store to serve", r.returncode == 0, r.stderr)
    with open(os.path.join(runs, "sub", "notes.txt"), "w") as f:
        f.write("a file of a run\n")
    # damaged stores: garbage, and a real one cut short
    with open(os.path.join(runs, "garbage.h5"), "wb") as f:
        f.write(b"this is not HDF5\n" * 100)
    data = open(os.path.join(runs, "good.h5"), "rb").read()
    with open(os.path.join(runs, "cut.h5"), "wb") as f:
        f.write(data[: len(data) // 3])
    # a secret outside the folder, and links to it
    secret = os.path.join(tmp, "secret.txt")
    with open(secret, "w") as f:
        f.write("SECRET\n")
    os.symlink(secret, os.path.join(runs, "link.txt"))
    os.symlink(tmp, os.path.join(runs, "up"))
    os.symlink(os.path.join(runs, "good.h5"), os.path.join(runs, "alias.h5"))  # a link that stays inside

    # a run stopped by Ctrl-C after some games: interrupted, with the command that resumes it
    tour = start_tournament(tavreli, src, runs, "stopped")
    wait_for(lambda: os.path.exists(os.path.join(runs, "stopped.h5")) and
             os.path.getsize(os.path.join(runs, "stopped.h5")) > 200000)
    tour.send_signal(signal.SIGINT)
    tour.wait(timeout=120)

    s = Server(tavreli, runs)
    try:
        status, d = s.json("/api/runs")
        e = next((r for r in d["runs"] if r["id"] == "stopped.h5"), {})
        t.check("a run stopped by Ctrl-C is interrupted, with its resume command",
                e.get("state") == "interrupted" and "--resume" in (e.get("resume") or "") and
                "stopped.h5" in (e.get("resume") or ""), e)
        t.check("... and its SPRT so far (from its tournament INI)", (e.get("sprt") or {}).get("elo1") == 10, e.get("sprt"))
        ids = {r["id"]: r for r in d["runs"]}
        t.check("the runs list answers", status == 200)
        t.check("the good store is listed and finished", ids.get("good.h5", {}).get("state") == "finished",
                ids.get("good.h5"))
        t.check("the good store's games are counted", ids.get("good.h5", {}).get("games") == 6)
        for bad in ("garbage.h5", "cut.h5"):
            e = ids.get(bad, {})
            t.check(f"{bad} is listed as damaged with the reader's reason", e.get("state") == "damaged" and
                    bool(e.get("error")), e)
        t.check("a link to a store inside the folder is listed", "alias.h5" in ids)
        t.check("a link out of the folder is not followed", not any(i.startswith("up/") for i in ids), list(ids))
        status, d = s.json("/api/run?run=garbage.h5")
        t.check("a damaged store's page says what the reader says", status == 200 and d.get("state") == "damaged"
                and d.get("error"), d)
        status, _, body = s.get("/api/games?run=cut.h5")
        t.check("its games: an error, not a crash", status >= 400 and "cannot be read" in body, (status, body))
        t.check("the server goes on after them", s.json("/api/runs")[0] == 200)

        # paths out of the folder, each refused without the secret
        for path in ["/files/../secret.txt", "/files/%2e%2e/secret.txt", "/files/%2E%2E%2Fsecret.txt",
                     "/files/sub/../../secret.txt", "/files//etc/passwd", "/files/%2Fetc%2Fpasswd",
                     "/files/link.txt", "/files/up/secret.txt", "/files/./good.h5",
                     "/api/run?run=..%2Fsecret.txt", "/api/run?run=%2Fetc%2Fpasswd", "/api/games?run=up%2Fsecret.txt",
                     "/api/game?run=..&game=0", "/tgn?run=%2e%2e%2fsecret.txt&game=0", "/report?run=/etc"]:
            status, _, body = s.get(path)
            t.check(f"{path} is refused ({status})", 400 <= status < 500 and "SECRET" not in body and
                    "root:" not in body, (status, body[:200]))
        status, _, body = s.get("/files/sub/notes.txt")
        t.check("a file of a run is served", status == 200 and body == "a file of a run\n", (status, body))
        status, _, body = s.get("/files/good.h5")
        t.check("a store is not served as a file", status == 403, status)
        status, _, body = s.get("/api/game?run=good.h5&game=99")
        t.check("a game the store does not have: 404", status == 404, (status, body))
        status, _, body = s.get("/api/game?run=good.h5&game=x1")
        t.check("a game index that is not one: 400", status == 400, (status, body))
        status, _, body = s.get("/nothing")
        t.check("an unknown page: 404", status == 404, status)

        # nothing writes
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            status, headers, body = s.get("/api/runs", method=method, body=b"x=1" * 1000)
            t.check(f"{method} is refused with 405", status == 405 and "GET" in headers.get("Allow", ""),
                    (status, headers))
        status, _, _ = s.get("/", method="HEAD")
        t.check("HEAD is answered", status == 200)

        # a store removed between two requests
        shutil.copy(os.path.join(runs, "good.h5"), os.path.join(runs, "gone.h5"))
        t.check("a new store appears in the list", "gone.h5" in {r["id"] for r in s.json("/api/runs")[1]["runs"]})
        os.remove(os.path.join(runs, "gone.h5"))
        t.check("... and leaves it when removed", "gone.h5" not in {r["id"] for r in s.json("/api/runs")[1]["runs"]})

        # many clients: 10,000 requests over 50 connections (kept alive)
        paths = ["/api/runs", "/", "/static/tavreli.js", "/api/games?run=good.h5", "/api/run?run=good.h5"]

        def client(k, n):
            c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
            ok = 0
            for i in range(n):
                try:
                    c.request("GET", paths[(k + i) % len(paths)])
                    r = c.getresponse()
                    r.read()
                    ok += r.status == 200
                    if r.getheader("Connection", "").lower() == "close":
                        c.close()
                        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
            c.close()
            return ok

        with concurrent.futures.ThreadPoolExecutor(50) as pool:  # warm-up: the caches and the pools fill
            sum(pool.map(lambda k: client(k, 20), range(50)))
        before = s.rss_kib()
        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            ok = sum(pool.map(lambda k: client(k, 200), range(50)))
        after = s.rss_kib()
        t.check(f"10,000 requests over 50 connections are answered ({ok} with 200)", ok == 10000, ok)
        # ASan's quarantine holds freed memory back by design: there only a leak check at the end applies
        limit = 64 * 1024 if sanitized else 8 * 1024
        t.check(f"the memory stays flat ({before} KiB before, {after} KiB after)", after - before <= limit,
                after - before)
        t.check("the server answers after them", s.json("/api/runs")[0] == 200)
    finally:
        cache = glob.glob(os.path.join(tmp, "tavreli-serve-*"))
        t.check("the server keeps its reports in its own folder", len(cache) == 1, cache)
        code, out = s.stop(signal.SIGINT)
        t.check("SIGINT ends it with 0", code == 0, (code, out))
        t.check("... and its folder is removed", not glob.glob(os.path.join(tmp, "tavreli-serve-*")))

    # SIGTERM too; bad options and folders
    s = Server(tavreli, runs)
    code, _ = s.stop(signal.SIGTERM)
    t.check("SIGTERM ends it with 0", code == 0, code)
    for args, what in ([["serve", os.path.join(tmp, "nope")], "a folder that does not exist"],
                       [["serve", runs, "--bind", "example.org"], "a bind that is not an address"],
                       [["serve", runs, "--port", "70000"], "a port out of range"],
                       [["serve", runs, "--bogus"], "an unknown flag"],
                       [["serve", runs, tmp], "two folders"]):
        r = subprocess.run([tavreli, *args], capture_output=True, text=True, timeout=60)
        t.check(f"{what}: refused with a message", r.returncode != 0 and r.stderr.strip(), (r.returncode, r.stderr))
    # a port in use
    s = Server(tavreli, runs)
    r = subprocess.run([tavreli, "serve", runs, "--port", str(s.port)], capture_output=True, text=True, timeout=60)
    t.check("a port in use: refused, naming it", r.returncode != 0 and str(s.port) in r.stderr, r.stderr)
    s.stop()
    # another address: a warning
    s = Server(tavreli, runs, "--bind", "0.0.0.0")
    code, _ = s.stop()
    s.log.seek(0)
    t.check("--bind 0.0.0.0 warns", "warning" in s.log.read())
    shutil.rmtree(tmp, ignore_errors=True)
    t.finish()


if __name__ == "__main__":
    main()
