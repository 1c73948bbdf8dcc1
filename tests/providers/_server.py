"""A provider's HTTP API played from a script, on 127.0.0.1: the official SDKs connect to it
through `base_url`, so every test goes over a real socket, through the SDK's own SSE decoder.

Each request takes the next scripted `Reply`: a stream of server-sent events (paced, or cut
off before its end), an HTTP error with a JSON body, a stall past the client's timeout, or raw
bytes that are no protocol at all. Streams use chunked transfer encoding, so a stream cut in
the middle reads as one to the client, as it would from a real server.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    frames: Iterable[bytes] = ()
    """Server-sent event frames (see `sse`), for a 200 stream: an iterator may go on forever."""
    status: int = 200
    body: Any = None
    """For an error status: the JSON body."""
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    """Bytes sent as the (event-stream) body, whatever they are."""
    pace: float = 0.0
    """Seconds between frames."""
    stall: float = 0.0
    """Seconds to wait before answering at all."""
    cut: bool = False
    """Close the connection after the frames, without ending the stream."""


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event frame: `data` as JSON (a str is sent as is)."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ScriptedServer:
    """The server; `reply(...)` scripts what the next requests get."""

    def __init__(self) -> None:
        self.replies: queue.Queue[Reply] = queue.Queue()
        self.requests: list[Received] = []
        self.disconnected = threading.Event()
        """Set when a client went away in the middle of a stream."""
        self.disconnected_at = 0.0
        self.frames_sent = 0
        self.frame_times: list[float] = []
        """`time.perf_counter()` as each frame was about to be written to the client."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet tests

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                try:
                    reply = server.replies.get_nowait()
                except queue.Empty:
                    reply = Reply(status=500, body={"error": {"message": "nothing scripted"}})
                try:
                    self._answer(reply)
                except (BrokenPipeError, ConnectionResetError):
                    server.disconnected_at = time.monotonic()
                    server.disconnected.set()
                    self.close_connection = True

            def _answer(self, reply: Reply) -> None:
                if reply.stall:
                    time.sleep(reply.stall)
                if reply.status != 200:
                    payload = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                frames = [reply.raw] if reply.raw is not None else reply.frames
                for frame in frames:
                    if reply.pace:
                        time.sleep(reply.pace)
                    # Timed before the write: the client may read the frame before this
                    # thread runs again.
                    server.frame_times.append(time.perf_counter())
                    self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                    self.wfile.flush()
                    server.frames_sent += 1
                if reply.cut:
                    self.close_connection = True
                    return
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        # A short poll: `shutdown()` waits for the serving loop's next look, 0.5 s by default, at
        # the end of every test that uses a server.
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(self, *replies: Reply) -> None:
        for reply in replies:
            self.replies.put(reply)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def serve() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    try:
        yield server
    finally:
        server.stop()
