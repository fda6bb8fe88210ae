"""The wire between the window and its engine process: framed, pickled tuples over a private
socket pair (docs/engine-protocol.md).

Each message is one frame: a 4-byte big-endian length, then a pickle of a tuple whose first item
names it. Both ends are Skill Prism's own processes on a socket pair no one else holds, so pickle
carries values, never anything read from a skill. Large answers come in several frames (`PART`s
then the `ANSWER`), so the window never decodes more than a slice at a time.

Window -> engine:   (REQUEST, id, kind, args)   (CANCEL, id)   (BYE,)
Engine -> window:   (HELLO, EngineInfo)         (PROGRESS, id, kind, done, total, text)
                    (PART, id, field, kind_of_container, items)
                    (ANSWER, id, kind, payload)  (FAILED, id, kind, Failure)
                    (EVENT, name, payload)
An answer the engine sends by itself (after files changed) has id 0.
"""

from __future__ import annotations

import pickle
import socket
import struct
from collections.abc import Iterator
from typing import Any

PROTOCOL_VERSION = 1

REQUEST = "request"
CANCEL = "cancel"
BYE = "bye"
HELLO = "hello"
PROGRESS = "progress"
PART = "part"
ANSWER = "answer"
FAILED = "failed"
EVENT = "event"

_HEADER = struct.Struct("!I")
MAX_FRAME = 1 << 30  # a frame longer than this is a broken stream, not a message


class ProtocolError(Exception):
    """The stream does not hold frames of this protocol."""


def encode(message: tuple[Any, ...]) -> bytes:
    """One message as a frame."""
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"a message of {len(payload):,} bytes is too long for one frame")
    return _HEADER.pack(len(payload)) + payload


def decode(frame: bytes) -> tuple[Any, ...]:
    """The message of one frame's payload."""
    message = pickle.loads(frame)
    if not isinstance(message, tuple) or not message or not isinstance(message[0], str):
        raise ProtocolError("a frame that holds no message")
    return message


class FrameSplitter:
    """Cuts a byte stream into frame payloads as the bytes arrive, in any pieces."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """The payloads completed by `data` (in order)."""
        self._buffer += data
        out: list[bytes] = []
        buffer = self._buffer
        start = 0
        while len(buffer) - start >= _HEADER.size:
            (length,) = _HEADER.unpack_from(buffer, start)
            if length > MAX_FRAME:
                raise ProtocolError(f"a frame of {length:,} bytes announced: the stream is broken")
            end = start + _HEADER.size + length
            if len(buffer) < end:
                break
            out.append(bytes(buffer[start + _HEADER.size : end]))
            start = end
        if start:
            del buffer[:start]
        return out

    @property
    def pending(self) -> int:
        """Bytes received that do not make a whole frame yet."""
        return len(self._buffer)


def read_frames(sock: socket.socket, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Every frame payload from a blocking socket, until the other end closes it."""
    splitter = FrameSplitter()
    while True:
        try:
            data = sock.recv(chunk)
        except InterruptedError:
            continue
        if not data:
            if splitter.pending:
                raise ProtocolError("the stream ended inside a frame")
            return
        yield from splitter.feed(data)


def chunks(items: list[Any] | tuple[Any, ...], size: int) -> Iterator[list[Any]]:
    """`items` in lists of at most `size` (at least one list, empty for no items)."""
    if not items:
        yield []
        return
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
