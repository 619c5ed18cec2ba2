"""browser.py - headless Chromium driven over the DevTools protocol on a
pipe (--remote-debugging-pipe: requests on fd 3, replies on fd 4, JSON
messages ending in NUL), with the standard library only. The HTML report's
checks use it to render one page at several widths, in light and dark mode
and with JavaScript off, measure the layout from inside the page and take
screenshots."""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, exe, timeout=60):
        self.timeout = timeout
        self.dir = tempfile.mkdtemp(prefix="scaler-chromium-")
        # fds above 4 (F_DUPFD_CLOEXEC), so that the child's dup2 onto 3
        # and 4 never meets one of them, and only 3 and 4 cross the exec
        to_r, to_w, from_r, from_w = [self._high(fd) for fd in os.pipe() + os.pipe()]

        def child():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--hide-scrollbars",
             "--user-data-dir=" + self.dir, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=child, start_new_session=True)
        os.close(to_r)
        os.close(from_w)
        self.wfd, self.rfd = to_w, from_r
        self.buf, self.next_id, self.events = b"", 0, []
        self.session = None

    @staticmethod
    def _high(fd):
        new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return new

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not answer in %ds" % self.timeout)
            r, _, _ = select.select([self.rfd], [], [], 1)
            if r:
                chunk = os.read(self.rfd, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[:i + 1]
                return m
        self.events = []
        while True:
            m = self._read(deadline)
            if m.get("method") == method:
                return m

    def open(self, url, width, height, dark=False, script=True):
        """A new tab at width x height showing url; dark sets
        prefers-color-scheme: dark; script=False runs no JavaScript."""
        if self.session:
            self.call("Target.closeTarget", {"targetId": self.target}, session=False)
            self.session = None
        self.target = self.call("Target.createTarget", {"url": "about:blank"},
                                session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": self.target, "flatten": True},
                                 session=False)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
        if not script:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True})
        self.events = []
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def eval(self, expr):
        """The value of a JavaScript expression (run even with the page's
        scripts off: DevTools evaluations are not the page's)."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"].get("exception", {})
                               .get("description", r["exceptionDetails"]))
        return r["result"].get("value")

    def screenshot(self, path, full=False):
        p = {"format": "png"}
        if full:
            p["captureBeyondViewport"] = True
            w, h = self.eval("[document.documentElement.scrollWidth,"
                             "document.documentElement.scrollHeight]")
            p["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 12000), "scale": 1}
        data = self.call("Page.captureScreenshot", p)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        os.close(self.wfd)
        os.close(self.rfd)
        shutil.rmtree(self.dir, ignore_errors=True)
