"""A headless Chromium driven over the DevTools protocol on a pipe (no extra package, no
port), with the network cut off, that notes every script error and every dialog a page
opens (and dismisses it); and a PNG reader good enough to tell a drawing from a blank page."""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    """One page of a headless Chromium that may reach no network."""

    def __init__(self, width: int = 1280, height: int = 800):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        self._profile = tempfile.mkdtemp(prefix="repomap-chromium-")
        command = [CHROMIUM, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                   "--no-first-run", "--disable-extensions", f"--user-data-dir={self._profile}",
                   "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                   f"--window-size={width},{height}", "about:blank"]
        # Chromium reads the protocol on fd 3 and answers on fd 4: put the pipe ends there for
        # the child, and put back whatever this process had there.
        saved = {fd: _dup_or_none(fd) for fd in (3, 4)}
        try:
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
            self._process = subprocess.Popen(command, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)
        finally:
            for fd, copy in saved.items():
                if copy is None:
                    os.close(fd)
                else:
                    os.dup2(copy, fd)
                    os.close(copy)
            os.close(to_chrome_r)
            os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.failed_requests: list[str] = []
        self.errors: list[str] = []  # uncaught exceptions, a script that did not parse among them
        self.dialogs: list[str] = []  # alert, confirm and prompt messages
        self.send("Network.enable", session=True)
        self.send("Runtime.enable", session=True)
        self.send("Page.enable", session=True)
        self.send("Network.emulateNetworkConditions", session=True, offline=True, latency=0,
                  downloadThroughput=0, uploadThroughput=0)
        self.send("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def send(self, method: str, session: bool = False, **params) -> dict:
        wanted = self._post(method, session, **params)
        while True:
            reply = self._read()
            event = reply.get("method")
            if event == "Network.loadingFailed":
                self.failed_requests.append(reply["params"].get("errorText", ""))
            elif event == "Runtime.exceptionThrown":
                details = reply["params"]["exceptionDetails"]
                self.errors.append(details.get("exception", {}).get("description") or details.get("text", ""))
            elif event == "Page.javascriptDialogOpening":
                self.dialogs.append(reply["params"]["message"])
                self._post("Page.handleJavaScriptDialog", True, accept=True)  # a dialog stops the page's script
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _post(self, method: str, session: bool, **params) -> int:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        return self._next

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str, ready: str, timeout: float = 20) -> None:
        """Load `url` and wait until the JavaScript expression `ready` is true."""
        self.send("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + timeout
        while not self.evaluate(ready):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url}: {ready} never became true")
            time.sleep(0.05)

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A real mouse click at page coordinates."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)

    def type(self, text: str) -> None:
        self.send("Input.insertText", session=True, text=text)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", session=True, format="png")["data"])

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self._profile, ignore_errors=True)


def _dup_or_none(fd: int) -> int | None:
    try:
        return os.dup(fd)
    except OSError:
        return None


def png_colours(data: bytes) -> int:
    """How many distinct colours an 8-bit RGB or RGBA PNG has (a blank page has one)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat = 8, b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    assert depth == 8 and colour_type in (2, 6), (depth, colour_type)
    channels = 4 if colour_type == 6 else 3
    raw, stride = zlib.decompress(idat), width * channels
    previous, colours = bytearray(stride), set()
    for row in range(height):
        kind, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        colours.update(bytes(line[i:i + 3]) for i in range(0, stride, channels * 4))  # every 4th pixel
        previous = line
    return len(colours)
