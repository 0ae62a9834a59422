"""A fault-injecting HTTP proxy on 127.0.0.1 in front of a real server, for the served-model tests.

Requests are numbered from 1 in the order they arrive. A fault is scheduled for a request number
(`FaultProxy(url, at={1: Fault.busy(2)})`) or for requests matching a pattern (`match=[(r"/v1/completions",
Fault.drop(), 2)]`: the first two such requests); every other request is forwarded as it came and its response
returned as a whole (streamed responses are buffered). An unreachable upstream answers 502.

    with FaultProxy(server.url, at={1: Fault.busy(1), 2: Fault.unavailable(), 3: Fault.stall(30),
                                    4: Fault.drop()}) as proxy:
        ...  # point the client at proxy.url
    assert proxy.injected == {"429": 1, "503": 1, "stall": 1, "drop": 1}

`most_in_flight` is the most requests it forwarded at once (those the upstream worked on together).
"""

from __future__ import annotations

import http.client
import re
import socket
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# headers that describe one hop, not the message (RFC 9110 §7.6.1), plus those the proxy recomputes
_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "host", "content-length"}


@dataclass(frozen=True)
class Fault:
    """What the proxy does to one request instead of forwarding it."""

    kind: str  # "429", "503", "stall" or "drop"
    seconds: float = 0.0  # 429: the Retry-After value; stall: how long the response is held

    @classmethod
    def busy(cls, retry_after: float = 1) -> Fault:
        """429 Too Many Requests with `Retry-After: retry_after` (seconds)."""
        return cls("429", retry_after)

    @classmethod
    def unavailable(cls) -> Fault:
        """503 Service Unavailable, no Retry-After."""
        return cls("503")

    @classmethod
    def stall(cls, seconds: float) -> Fault:
        """Hold the request `seconds` (longer than the client's timeout), then forward it and answer."""
        return cls("stall", seconds)

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without a response."""
        return cls("drop")


@dataclass
class Rule:
    pattern: re.Pattern[str]  # searched in "METHOD /path\nbody"
    fault: Fault
    left: int | None  # matching requests still to fault; None: all of them


@dataclass(frozen=True)
class Call:
    number: int
    method: str
    path: str
    fault: str | None  # the fault's kind, or None when forwarded
    status: int | None  # the status sent to the client (None: dropped, or not answered yet)


@dataclass
class FaultProxy:
    """A threaded proxy from `url` (same path layout) to `upstream`; a context manager that starts and stops it."""

    upstream: str
    at: dict[int, Fault] = field(default_factory=dict)
    match: list[tuple[str, Fault, int | None]] = field(default_factory=list)
    upstream_timeout: float = 300.0

    def __post_init__(self) -> None:
        split = urlsplit(self.upstream)
        self._host, self._port, self._prefix = split.hostname, split.port, split.path.rstrip("/")
        self._rules = [Rule(re.compile(p), f, n) for p, f, n in self.match]
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.calls: list[Call] = []
        self._server: ThreadingHTTPServer | None = None
        self._in_flight = 0
        self.most_in_flight = 0  # the most requests forwarded at once

    # -- programming and counting ------------------------------------------------------------------------------

    def inject(self, number: int, fault: Fault) -> None:
        """Fault request `number` (counted from 1 since the proxy started)."""
        with self._lock:
            self.at[number] = fault

    def inject_matching(self, pattern: str, fault: Fault, times: int | None = 1) -> None:
        """Fault the next `times` requests whose "METHOD /path\\nbody" matches `pattern` (None: all)."""
        with self._lock:
            self._rules.append(Rule(re.compile(pattern), fault, times))

    @property
    def requests(self) -> int:
        """Requests received so far (faulted or forwarded)."""
        return len(self.calls)

    @property
    def injected(self) -> Counter[str]:
        """Faults injected so far, by kind."""
        return Counter(c.fault for c in self.calls if c.fault)

    @property
    def forwarded(self) -> int:
        """Requests passed on without a fault."""
        return sum(c.fault is None for c in self.calls)

    # -- lifecycle ---------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The proxy's URL with the upstream's path (e.g. http://127.0.0.1:PORT/v1)."""
        assert self._server is not None, "proxy not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}{self._prefix}"

    def start(self) -> FaultProxy:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="faultproxy", daemon=True).start()
        return self

    def close(self) -> None:
        self._closing.set()  # releases stalled requests
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- per request -------------------------------------------------------------------------------------------

    def _next(self, method: str, path: str, body: bytes) -> tuple[int, Fault | None]:
        """Number the request and decide its fault (counted as injected from here on)."""
        with self._lock:
            number = len(self.calls) + 1
            fault = self.at.get(number)
            if fault is None:
                text = f"{method} {path}\n{body.decode('utf-8', 'replace')}"
                for rule in self._rules:
                    if rule.left != 0 and rule.pattern.search(text):
                        rule.left = None if rule.left is None else rule.left - 1
                        fault = rule.fault
                        break
            self.calls.append(Call(number, method, path, fault.kind if fault else None, None))
            return number, fault

    def _answered(self, number: int, status: int | None) -> None:
        with self._lock:
            call = self.calls[number - 1]
            self.calls[number - 1] = Call(call.number, call.method, call.path, call.fault, status)

    def _forward(self, method: str, path: str, headers: dict[str, str], body: bytes):
        with self._lock:
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
        conn = http.client.HTTPConnection(self._host, self._port, timeout=self.upstream_timeout)
        try:
            conn.request(method, path, body=body or None, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.getheaders(), resp.read()
        finally:
            conn.close()
            with self._lock:
                self._in_flight -= 1


def _handler(proxy: FaultProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the clients' pools expect

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def _reply(self, status: int, body: bytes, headers: list[tuple[str, str]] = ()) -> None:
            self.send_response(status)
            for k, v in headers:
                if k.lower() not in _HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            number, fault = proxy._next(self.command, self.path, body)
            kind = fault.kind if fault else None
            if kind == "drop":
                proxy._answered(number, None)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if kind in ("429", "503"):
                extra = [("Retry-After", f"{fault.seconds:g}")] if kind == "429" else []
                message = b'{"error": {"message": "injected fault", "type": "fault_proxy"}}'
                proxy._answered(number, int(kind))
                self._reply(int(kind), message, [("Content-Type", "application/json"), *extra])
                return
            if kind == "stall" and proxy._closing.wait(fault.seconds):
                proxy._answered(number, None)
                self.close_connection = True
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            try:
                status, resp_headers, resp_body = proxy._forward(self.command, self.path, headers, body)
            except OSError as e:  # upstream down or refusing: what a gateway answers
                status, resp_headers, resp_body = 502, [("Content-Type", "text/plain")], f"upstream: {e}".encode()
            proxy._answered(number, status)
            try:
                self._reply(status, resp_body, resp_headers)
            except OSError:  # the client gave up (a stalled request past its timeout)
                self.close_connection = True

        do_GET = do_POST = do_PUT = do_DELETE = _handle

    return Handler
