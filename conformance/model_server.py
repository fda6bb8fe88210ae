"""A scripted model server on 127.0.0.1 for the trigger lab's live runs (issue #27).

The real CLIs (Claude Code, Codex, Gemini CLI, OpenCode) are pointed at this server through their
own base-URL setting and run inside a network namespace where it is the only peer. It speaks the
wire formats they call, streaming as the real services do:

- Anthropic Messages: `POST /v1/messages` (SSE when `stream` is true, JSON otherwise);
- OpenAI Responses: `POST /v1/responses` (SSE);
- Gemini: `POST /v1beta/models/<model>:streamGenerateContent` (SSE) and `:generateContent`.

Every request that offers tools and carries no tool result yet is a *main turn*, answered from the
script: `{"kind": "tool", "tool": NAME, "input": {...}}` (a call of that tool; for the Responses
API an input `{"custom": TEXT}` makes it a free-form tool call, as Codex's `exec`), `{"kind": "text"}`,
`{"kind": "error", "status": 400, "message": ...}` or `{"kind": "hang"}` (headers never sent, the
connection held open). Any other request (a tool result coming back, a side call without tools)
gets a short text answer, so the CLI finishes its turn. Each request body is appended to the log
file, one JSON line, for whoever writes a new script.

Run: `python3 model_server.py --script S.json --port-file P [--log L]` (port 0: the kernel picks);
`netns_run.py` starts it in-process instead.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "lab-model-1"
DONE_TEXT = "Done."


class Script:
    """The scripted answer of the main turn, and a log of what the CLI sent."""

    def __init__(self, answer: dict[str, Any], log: Path | None = None) -> None:
        self.answer = answer
        self.log = log
        self.lock = threading.Lock()
        self.calls = 0

    def record(self, path: str, body: Any) -> None:
        with self.lock:
            self.calls += 1
            if self.log is not None:
                with self.log.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({"path": path, "body": body}) + "\n")


def _has_tool_result_anthropic(body: dict) -> bool:
    for msg in body.get("messages") or []:
        content = msg.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            return True
    return False


def _has_tool_result_responses(body: dict) -> bool:
    items = body.get("input")
    return isinstance(items, list) and any(
        isinstance(i, dict) and i.get("type", "").endswith("_call_output") for i in items
    )


def _has_tool_result_gemini(body: dict) -> bool:
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part, dict) and "functionResponse" in part:
                return True
    return False


class Handler(BaseHTTPRequestHandler):
    server: LabServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: stderr is the CLI's
        pass

    def _body(self) -> dict:
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            data = {}
        return data if isinstance(data, dict) else {}

    def do_GET(self) -> None:
        self.server.script.record(self.path, None)
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"not here: {self.path}"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._body()
        path = self.path.split("?", 1)[0]
        self.server.script.record(self.path, body)
        if path.endswith("/messages"):
            main = bool(body.get("tools")) and not _has_tool_result_anthropic(body)
            self._answer(main, "anthropic", body)
        elif path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": 100})
        elif path.endswith("/responses"):
            # Codex's default model gets its tools as an `additional_tools` input item
            offered = bool(body.get("tools")) or any(
                isinstance(i, dict) and i.get("type") == "additional_tools"
                for i in body.get("input") or []
            )
            main = offered and not _has_tool_result_responses(body)
            self._answer(main, "responses", body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            main = bool(body.get("tools")) and not _has_tool_result_gemini(body)
            self._answer(main, "gemini", body, stream=":streamGenerateContent" in path)
        elif path.endswith(":countTokens"):
            self._json(200, {"totalTokens": 100})
        else:
            self._json(404, {"error": {"message": f"not here: {self.path}"}})

    # -----------------------------------------------------------------------------------------

    def _answer(self, main: bool, wire: str, body: dict, stream: bool | None = None) -> None:
        answer = self.server.script.answer if main else {"kind": "text"}
        kind = answer.get("kind", "text")
        if kind == "hang":
            while not self.server.stopping.is_set():
                time.sleep(0.1)
            return
        if kind == "error":
            status = int(answer.get("status", 400))
            message = str(answer.get("message", "lab: scripted error"))
            self._json(status, _error_body(wire, status, message))
            return
        tool = (answer.get("tool"), answer.get("input") or {}) if kind == "tool" else None
        text = str(answer.get("text", DONE_TEXT))
        if wire == "anthropic":
            if body.get("stream"):
                self._sse(_anthropic_events(tool, text, body), named=True)
            else:
                self._json(200, _anthropic_message(tool, text, body))
        elif wire == "responses":
            self._sse(_responses_events(tool, text, body), named=True)
        elif stream:
            self._sse([_gemini_chunk(tool, text)], named=False)
        else:
            self._json(200, _gemini_chunk(tool, text))

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[Any], named: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for event in events:
            chunk = ""
            if named:
                chunk += f"event: {event['type']}\n"
            chunk += f"data: {json.dumps(event)}\n\n"
            self.wfile.write(chunk.encode())
            self.wfile.flush()


def _error_body(wire: str, status: int, message: str) -> dict:
    if wire == "anthropic":
        kind = "invalid_request_error" if status == 400 else "api_error"
        return {"type": "error", "error": {"type": kind, "message": message}}
    if wire == "responses":
        return {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}


def _usage() -> dict:
    return {"input_tokens": 100, "output_tokens": 10}


def _anthropic_message(tool: tuple | None, text: str, body: dict) -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    if tool is not None:
        content = [{"type": "tool_use", "id": "toolu_lab1", "name": tool[0], "input": tool[1]}]
    return {
        "id": "msg_lab1",
        "type": "message",
        "role": "assistant",
        "model": body.get("model") or MODEL,
        "content": content,
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": _usage(),
    }


def _anthropic_events(tool: tuple | None, text: str, body: dict) -> list[dict]:
    start = _anthropic_message(None, "", body)
    start.update(content=[], stop_reason=None)
    events: list[dict] = [{"type": "message_start", "message": start}]
    if tool is None:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
    else:
        block = {"type": "tool_use", "id": "toolu_lab1", "name": tool[0], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool[1])}
    events += [
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use" if tool else "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
        {"type": "message_stop"},
    ]
    return events


def _responses_events(tool: tuple | None, text: str, body: dict) -> list[dict]:
    model = body.get("model") or MODEL
    if tool is None:
        item: dict = {
            "type": "message",
            "id": "msg_lab1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    elif isinstance(tool[1].get("custom"), str):  # a free-form tool: its input is text
        item = {
            "type": "custom_tool_call",
            "id": "ctc_lab1",
            "call_id": "call_lab1",
            "name": tool[0],
            "input": tool[1]["custom"],
            "status": "completed",
        }
    else:
        item = {
            "type": "function_call",
            "id": "fc_lab1",
            "call_id": "call_lab1",
            "name": tool[0],
            "arguments": json.dumps(tool[1]),
            "status": "completed",
        }
    response = {"id": "resp_lab1", "object": "response", "model": model, "status": "in_progress"}
    done = dict(
        response,
        status="completed",
        output=[item],
        usage={
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        },
    )
    events: list[dict] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    if tool is None:
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_lab1",
                "output_index": 0,
                "content_index": 0,
                "delta": text,
            }
        )
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": done},
    ]
    return events


def _gemini_chunk(tool: tuple | None, text: str) -> dict:
    part = {"functionCall": {"name": tool[0], "args": tool[1]}} if tool else {"text": text}
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 10,
            "totalTokenCount": 110,
        },
        "modelVersion": MODEL,
    }


class LabServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script, port: int = 0) -> None:
        self.script = script
        self.stopping = threading.Event()
        super().__init__(("127.0.0.1", port), Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()


def load_script(path: str) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("kind") not in ("tool", "text", "error", "hang"):
        raise SystemExit(f"{path}: expected {{'kind': 'tool'|'text'|'error'|'hang', ...}}")
    return data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--script", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    args = ap.parse_args()
    server = LabServer(Script(load_script(args.script), Path(args.log) if args.log else None))
    if args.port_file:
        Path(args.port_file).write_text(str(server.server_address[1]), encoding="utf-8")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
