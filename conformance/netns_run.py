"""Run one CLI beside the scripted model server, both inside one fresh network namespace.

`live_lab.py` starts this under `unshare -n` / `unshare -rn`: the namespace has only a loopback
interface, which this brings up; the server listens on 127.0.0.1 (a port the kernel picks) and is
the only peer the CLI can reach. `{base_url}` in the CLI's arguments and in `--env K=V` values is
replaced with the server's address. The CLI runs in this process group (the runner's cancel kills
the group: CLI, this wrapper and the server together) with this process's environment plus the
`--env` values; its stdout and stderr are its own, its exit status is this one's.

    netns_run.py --script S.json [--log L] [--tee OUT] [--env K=V ...] -- CLI ARGS...
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_server import LabServer, Script, load_script


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--tee", help="also copy the CLI's stdout into this file")
    ap.add_argument("argv", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        ap.error("no command")
    up = subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True, text=True)
    if up.returncode != 0:
        print(f"netns_run: cannot bring loopback up: {up.stderr.strip()}", file=sys.stderr)
        return 125
    server = LabServer(Script(load_script(args.script), Path(args.log) if args.log else None))
    server.start()
    env = dict(os.environ)
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value.replace("{base_url}", server.base_url)
    argv = [a.replace("{base_url}", server.base_url) for a in argv]
    try:
        if not args.tee:
            return subprocess.run(argv, env=env, stdin=subprocess.DEVNULL).returncode
        with open(args.tee, "wb") as copy:
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
            assert proc.stdout is not None
            for line in proc.stdout:
                copy.write(line)
                copy.flush()
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()
            return proc.wait()
    finally:
        server.stopping.set()


if __name__ == "__main__":
    raise SystemExit(main())
