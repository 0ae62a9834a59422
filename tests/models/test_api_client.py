"""The endpoint client's requests in flight, shared by every thread that sends (chunks computed at once), against a
slow HTTP server on 127.0.0.1 (the standard library's)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from robust.plugins.models.api.client import EndpointClient, Retry

SECONDS = 0.6  # each answer takes this long; the client's timeout is 1 s


@pytest.fixture()
def slow_server():
    """A server that answers every POST after SECONDS with {"ok": n}, counting the requests it works on at once."""
    state = {"now": 0, "most": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - the standard library's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(SECONDS)
            with lock:
                state["now"] -= 1
            body = json.dumps({"ok": 1}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    server.shutdown()
    server.server_close()


def test_threads_queue_for_the_requests_in_flight_without_spending_their_timeout(slow_server):
    """Three threads post at once through a client of concurrency 1 and a 1 s timeout, each answer taking 0.6 s: the
    server works on one request at a time (httpx's pool holds the others), and the third thread's wait (1.2 s) is not
    charged to its request, so nothing times out or is retried."""
    url, state = slow_server
    client = EndpointClient(url, "", "$NONE", 1.0, Retry(max_tries=1), 1)
    answers = [None] * 3

    def post(i: int) -> None:
        answers[i] = client.post("/completions", {"i": i})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    client.close()
    assert answers == [{"ok": 1}] * 3 and not client.retries
    assert state["most"] == 1
