"""A headless Chromium driven over the DevTools protocol through a pipe: no driver binary, no pip package.

Chromium started with --remote-debugging-pipe reads NUL-separated JSON commands on fd 3 and writes
answers and events on fd 4. Enough of the protocol for tests and screenshots: open a page, wait for
it to load, evaluate JavaScript, read cookies, take a screenshot.
"""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-proxy-server",
    "--remote-debugging-pipe",
)


class BrowserError(RuntimeError):
    pass


def find_chromium() -> str | None:
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process with a fresh profile; `page()` opens a tab attached in flat session mode."""

    def __init__(self, executable: str, *, window_size: str = "1280,900", timeout: float = 20.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds():  # in the child: the protocol's fds are 3 (commands in) and 4 (answers out)
            high_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            high_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self.process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile}", f"--window-size={window_size}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Not pass_fds: it insists that fds 3 and 4 be open here already. Python's own fds are
            # not inheritable (PEP 446), so only the two dup2'd ones reach Chromium.
            close_fds=False,
            preexec_fn=wire_fds,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._answers: dict[int, dict] = {}
        self._events: list[dict] = []
        self._lock = threading.Condition()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.version = self.send("Browser.getVersion")["product"]

    # --- protocol ---------------------------------------------------------------------------------

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    self._closed = True
                    self._lock.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._lock:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self._events.append(message)
                    self._lock.notify_all()

    def send(self, method: str, params: dict | None = None, *, session: str | None = None) -> dict:
        with self._lock:
            self._next_id += 1
            command_id = self._next_id
        message = {"id": command_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        with self._lock:
            while command_id not in self._answers:
                if self._closed:
                    raise BrowserError(f"Chromium exited while waiting for {method}")
                if not self._lock.wait(timeout=max(0.0, deadline - time.monotonic())):
                    raise BrowserError(f"no answer to {method} within {self.timeout}s")
            answer = self._answers.pop(command_id)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def wait_event(self, method: str, *, session: str | None = None, since: int = 0) -> dict:
        deadline = time.monotonic() + self.timeout
        with self._lock:
            while True:
                for index, event in enumerate(self._events[since:], start=since):
                    if event.get("method") == method and (
                        session is None or event.get("sessionId") == session
                    ):
                        del self._events[index]
                        return event.get("params", {})
                if self._closed:
                    raise BrowserError(f"Chromium exited while waiting for {method}")
                if not self._lock.wait(timeout=max(0.0, deadline - time.monotonic())):
                    raise BrowserError(f"no {method} within {self.timeout}s")

    def clear_events(self):
        with self._lock:
            self._events.clear()

    # --- pages ------------------------------------------------------------------------------------

    def page(self) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        page.send("Page.enable")
        page.send("Runtime.enable")
        return page

    def cookies(self) -> list[dict]:
        return self.send("Storage.getCookies")["cookies"]

    def set_cookie(self, **cookie):
        self.send("Storage.setCookies", {"cookies": [cookie]})

    def close(self):
        try:
            if self.process.poll() is None:
                try:
                    self.send("Browser.close")
                except BrowserError:
                    pass
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=5)
        finally:
            for fd in (self._to_browser, self._from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict | None = None) -> dict:
        return self.browser.send(method, params, session=self.session)

    def goto(self, url: str) -> None:
        """Navigate and wait for the load event of the page finally shown (after redirects)."""
        self.browser.clear_events()
        answer = self.send("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise BrowserError(f"navigating to {url}: {answer['errorText']}")
        self.browser.wait_event("Page.loadEventFired", session=self.session)

    def watch_csp_violations(self) -> None:
        """From the next page on, keep each Content-Security-Policy violation in window.cspViolations."""
        self.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {
                "source": "window.cspViolations = [];"
                "document.addEventListener('securitypolicyviolation', function (e) {"
                "  window.cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));"
                "});"
            },
        )

    def evaluate(self, expression: str):
        """The value of a JavaScript expression; a Promise is awaited."""
        answer = self.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
        )
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript error: {text}")
        return answer["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float | None = None):
        """Poll until the expression is truthy; its value."""
        deadline = time.monotonic() + (timeout or self.browser.timeout)
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"still false after waiting: {expression}")
            time.sleep(0.05)

    def screenshot(self, path: str, *, full_page: bool = True) -> None:
        params = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))
