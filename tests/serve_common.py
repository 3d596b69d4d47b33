"""Shared by the tests of `tavreli serve` (test_serve_browser.py,
test_serve_refusals.py): starting and stopping the server, HTTP requests
that bypass any proxy, a tournament that keeps playing, and the checks'
tally."""
import http.client
import json
import os
import signal
import subprocess
import sys
import time


class Tally:
    def __init__(self, name):
        self.name, self.passes, self.fails = name, 0, 0

    def check(self, what, ok, detail=""):
        if ok:
            self.passes += 1
        else:
            self.fails += 1
            print(f"FAIL: {what}" + (f" ({detail})" if detail else ""), flush=True)
        return ok

    def finish(self):
        print(f"{self.name}: {self.passes} passed, {self.fails} failed", flush=True)
        sys.exit(0 if self.fails == 0 else 1)


def wait_for(cond, seconds=600, step=0.2):
    """Polls cond() until it is true (an event: a game stored, a page drawn),
    or `seconds` pass: a bound that only a hang reaches, never a measure of
    speed (a sanitized build beside eight busy loops stores a game in about
    20 s); its last value."""
    end = time.time() + seconds
    while True:
        v = cond()
        if v or time.time() > end:
            return v
        time.sleep(step)


class Server:
    """`tavreli serve DIR --port 0`, its port read from its first line."""

    def __init__(self, tavreli, folder, *extra):
        self.log = open(os.path.join(os.path.dirname(folder.rstrip("/")), "serve.log"), "w+")
        self.p = subprocess.Popen([tavreli, "serve", folder, "--port", "0", *extra], stdout=subprocess.PIPE,
                                  stderr=self.log, text=True)
        line = self.p.stdout.readline()
        self.first_line = line
        if "http://" not in line:
            raise RuntimeError(f"tavreli serve did not start: {line!r}")
        self.port = int(line.split("http://")[1].split("/")[0].rsplit(":", 1)[1])

    def get(self, path, method="GET", body=None, headers=None, timeout=60):
        """(status, headers, body text) of one request, the path sent as it is."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        c.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        if body is not None:
            c.putheader("Content-Length", str(len(body)))
        c.endheaders()
        if body is not None:
            c.send(body)
        r = c.getresponse()
        data = r.read().decode("utf-8", "replace")
        c.close()
        return r.status, dict(r.getheaders()), data

    def json(self, path):
        status, _, body = self.get(path)
        return status, (json.loads(body) if body.strip() else None)

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1

    def stop(self, sig=signal.SIGTERM):
        """Sends sig; its exit status and its last line."""
        self.p.send_signal(sig)
        try:
            out, _ = self.p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, _ = self.p.communicate()
            self.show_log()
            return None, out
        if self.p.returncode != 0:
            self.show_log()
        return self.p.returncode, out

    def show_log(self):
        """The server's stderr (a sanitizer's report, say), for a failure."""
        self.log.seek(0)
        print("tavreli serve's stderr:\n" + self.log.read()[-6000:], flush=True)


def start_tournament(tavreli, src, folder, name, depth=2):
    """A tournament that keeps playing for minutes (two copies of one engine
    at a fixed depth with an SPRT that will not decide soon) into
    folder/NAME.h5; the process."""
    ini = os.path.join(os.path.dirname(folder.rstrip("/")), f"{name}.ini")
    engine = os.path.join(os.path.abspath(src), "configs", "engines", "handset.ini")
    with open(ini, "w") as f:
        f.write(f"[tournament]\nname = {name}\npairs = 2000\nseed = 11\nthreads = 1\n\n"
                f"[sprt]\nelo0 = 0\nelo1 = 10\n\n"
                f"[engine a]\npath = {engine}\ndepth = {depth}\n\n[engine b]\npath = {engine}\ndepth = {depth}\n")
    log = open(os.path.join(os.path.dirname(folder.rstrip("/")), f"{name}.log"), "w")
    return subprocess.Popen([tavreli, "selfplay", ini, "--out", os.path.join(folder, f"{name}.h5")],
                            stdout=log, stderr=subprocess.STDOUT)
