"""Writing output to a terminal or a pipe: colour only where wanted, never a UnicodeEncodeError."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO


def want_color(
    stream: TextIO, no_color: bool = False, env: Mapping[str, str] | None = None
) -> bool:
    """Colour only on a terminal, never with --no-color, NO_COLOR (any non-empty value, see
    no-color.org) or TERM=dumb."""
    env = os.environ if env is None else env
    if no_color or env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def emit(text: str, stream: TextIO) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold instead of failing."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        data = text.encode(encoding, "backslashreplace")
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(data)
        else:
            stream.write(data.decode(encoding))
    stream.flush()
