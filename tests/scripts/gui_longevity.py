"""A long session in one process, for tests/test_gui_longevity.py: the real window on a skill of
50,000 lines (all highlighted) and 300 ordinary skills, each selected in turn, then a clean quit.

Run as a script (never imported by pytest): `python gui_longevity.py FOLDER [--leak N]`. `--leak N`
drops N references to None before the window opens, the way a broken binding would over a long
session, to show that the app's guard (or its absence) decides whether the process survives.
Exit 0 only when every step ran and the app quit normally.
"""

from __future__ import annotations

import argparse
import os
import sys

LONG_LINES = 50_000
ORDINARY = 300


def make_tree(root: str) -> None:
    long_dir = os.path.join(root, "long-skill")
    os.makedirs(long_dir, exist_ok=True)
    lines = [
        "---",
        "name: long-skill",
        "description: A long but ordinary skill. Use when testing.",
        "---",
    ]
    for i in range(LONG_LINES):
        if i % 50 == 0:
            lines.append(f"## Section {i // 50}")
        elif i % 7 == 0:
            lines.append(f"See [the notes](references/n{i}.md) and `code {i}`.")
        else:
            lines.append(f"Line {i} of ordinary instructions.")
    with open(os.path.join(long_dir, "SKILL.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    for n in range(ORDINARY):
        d = os.path.join(root, f"skill-{n:03d}")
        os.makedirs(d, exist_ok=True)
        body = "\n".join(f"Step {k}: do the thing with `tool {k}`." for k in range(40))
        with open(os.path.join(d, "SKILL.md"), "w", encoding="utf-8") as fh:
            fh.write(
                f"---\nname: skill-{n:03d}\ndescription: Does task {n}. Use when testing.\n"
                f"---\n# Skill {n}\n\n```sh\necho {n}\n```\n\n{body}\n"
            )


def drop_none_references(count: int) -> None:
    import ctypes

    dec = ctypes.pythonapi.Py_DecRef
    dec.argtypes = [ctypes.py_object]
    for _ in range(count):
        dec(None)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--leak", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    make_tree(args.folder)

    from PySide6.QtCore import QSettings, QTimer

    from skillprism.gui.app import make_application
    from skillprism.gui.main_window import MainWindow

    app = make_application()
    if args.leak:
        drop_none_references(args.leak)
    settings = QSettings(os.path.join(args.folder, "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        roots=[args.folder],
        profile="agentskills",
        project=args.folder,
        dark=False,
        settings=settings,
    )
    window.live = False
    window.resize(1200, 800)
    window.show()
    state = {"highlighted": 0, "selected": 0}

    queue: list[str] = []

    def run(_catalog: object) -> None:
        # Each skill's pages are prepared in the background: select the next one once the last
        # one is on screen (highlighted), so every selection really highlights.
        window.sig_catalog_applied.disconnect(run)
        keys = [s.key for s in window.loaded.skills]  # type: ignore[union-attr]
        long_key = next(k for k in keys if "long-skill" in k)
        queue.extend([long_key, *[k for k in keys if k != long_key][:ORDINARY]])
        window.sig_skill_shown.connect(shown)
        window.select_skill(queue[0])

    def shown(key: str) -> None:
        if key != queue[0]:
            return
        queue.pop(0)
        if "long-skill" in key:
            state["highlighted"] = window.source.document().blockCount()
        else:
            state["selected"] += 1
        if queue:
            window.select_skill(queue[0])
        else:
            QTimer.singleShot(0, app.quit)

    window.sig_catalog_applied.connect(run)
    QTimer.singleShot(0, window.reload)
    code = app.exec()
    window.shutdown()
    print(
        f"highlighted {state['highlighted']} lines, selected {state['selected']} skills", flush=True
    )
    if state["highlighted"] < LONG_LINES or state["selected"] < ORDINARY:
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
