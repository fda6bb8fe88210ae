"""Reading one skill file safely and splitting it into frontmatter and body.

Profile-independent: what the bytes are (encoding, line ends, delimiters) is the same whichever
runtime reads them. How the YAML inside is typed depends on the profile, so `SkillDocument.yaml()`
reads it on demand, once per typing.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from skillprism.core.yamlread import YamlResult, read_yaml

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_FRONTMATTER_CHARS = 256 * 1024
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/"
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Finding:
    """A profile-independent observation; a profile turns it into a Diagnostic via its rule."""

    rule: str
    message: str
    line: int = 0
    column: int = 0
    hint: str = ""


FileStamp = tuple[int, int, int, int, int]


def file_stamp(st: os.stat_result) -> FileStamp:
    """What tells one state of a file from another for caching: a content change moves mtime and
    size, a permission change only ctime and mode, a rename-save the inode."""
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_mode)


@dataclass(slots=True)
class SkillDocument:
    """One skill file as read from disk. `text` is None when the file could not be read as text."""

    path: str
    size: int = 0
    mtime_ns: int = 0
    stamp: FileStamp | None = None  # of the file read (None when it could not be stat'ed)
    text: str | None = None
    has_frontmatter: bool = False
    frontmatter_text: str = ""
    frontmatter_first_line: int = 0
    body: str = ""
    body_first_line: int = 1
    bom: bool = False
    line_ending: str = "\n"
    invalid_utf8: bool = False
    leading_blank_lines: int = 0
    findings: list[Finding] = field(default_factory=list)
    _yaml: dict[str, YamlResult] = field(default_factory=dict, repr=False)
    # The same file split by other framings (core/framing.py), keyed by the profile's Framing.
    _framed: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def readable(self) -> bool:
        return self.text is not None

    def yaml(self, typing: str, merge_keys: bool = False, pure: bool = False) -> YamlResult | None:
        """The frontmatter read with `typing` (and YAML merge keys applied if asked, and with
        PyYAML's pure-Python reader if `pure`); None when there is no frontmatter to read."""
        if not self.has_frontmatter:
            return None
        key = typing + ("+merge" if merge_keys else "") + ("+pure" if pure else "")
        cached = self._yaml.get(key)
        if cached is None:
            cached = read_yaml(
                line_ended(self.frontmatter_text),
                self.frontmatter_first_line,
                typing,
                merge_keys,
                pure,
            )
            self._yaml[key] = cached
        return cached


def line_ended(text: str) -> str:
    """`text` ending with a line break: the frontmatter block ends where the closing '---' line
    starts, so its last line is a complete line (a block scalar there keeps its line break
    under clip chomping, as js-yaml and `yaml` read it)."""
    return text if not text or text.endswith("\n") else text + "\n"


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_bytes_safely(
    path: str, cap: int = MAX_FILE_BYTES, *, regular: bool = False
) -> tuple[bytes | None, os.stat_result | None, Finding | None]:
    """Read a regular file of at most `cap` bytes. FIFOs, devices and sockets are never opened, so
    nothing can block; the descriptor is re-checked after opening against a swap in between.

    `regular` says the caller's directory listing (its d_type) already showed a regular file that
    is not a symlink: the stat before opening is then skipped. Only something swapped in since the
    listing can then be opened, and harmlessly: the open refuses to follow a symlink (O_NOFOLLOW,
    which falls back to the checked route), never blocks (O_NONBLOCK), and the descriptor's fstat
    decides as always, so anything but a regular file is still never read."""
    if regular and _O_NOFOLLOW:
        try:
            fd = os.open(path, _OPEN_FLAGS | _O_NOFOLLOW)
        except OSError:
            pass  # a symlink now (ELOOP), gone, unreadable...: the checked route below says which
        else:
            return _read_open(fd, cap, None)
    try:
        st = os.stat(path)
    except OSError as err:
        why = "broken symlink" if os.path.islink(path) else (err.strerror or str(err))
        return (
            None,
            None,
            Finding(
                "file-unreadable",
                f"cannot read the file: {why}",
                hint="fix the link or the permissions",
            ),
        )
    if not stat.S_ISREG(st.st_mode):
        return (
            None,
            st,
            Finding(
                "not-regular-file",
                "not a regular file (FIFO, socket or device); it is never opened",
                hint="replace it with an ordinary SKILL.md file",
            ),
        )
    if st.st_size > cap:
        return (
            None,
            st,
            Finding(
                "file-too-large",
                f"file is {st.st_size:,} bytes; files over {cap:,} bytes are not read",
                hint="keep SKILL.md small; move detail into references/",
            ),
        )
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        return (
            None,
            st,
            Finding(
                "file-unreadable",
                f"cannot open the file: {err.strerror or err}",
                hint="fix the permissions",
            ),
        )
    return _read_open(fd, cap, st)


def _read_open(
    fd: int, cap: int, st: os.stat_result | None
) -> tuple[bytes | None, os.stat_result | None, Finding | None]:
    """Read the file open on `fd` (closing it) if fstat shows a regular file of at most `cap`
    bytes; `st` is the path's stat, if taken, reported should fstat fail."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, st, Finding("not-regular-file", "not a regular file; it is never read")
        if st.st_size > cap:
            return (
                None,
                st,
                Finding(
                    "file-too-large",
                    f"file is {st.st_size:,} bytes; files over {cap:,} bytes are not read",
                    hint="keep SKILL.md small; move detail into references/",
                ),
            )
        # One read of the size fstat reports plus one byte settles the usual case (a short read of
        # a regular file means end of file). A file that grew since fstat is read on, capped.
        want = min(st.st_size, cap) + 1
        chunks: list[bytes] = [os.read(fd, want)]
        total = len(chunks[0])
        if total == want:
            while total <= cap:
                chunk = os.read(fd, min(cap + 1 - total, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError as err:
        return None, st, Finding("file-unreadable", f"cannot read the file: {err.strerror or err}")
    finally:
        os.close(fd)
    if len(data) > cap:
        return None, st, Finding("file-too-large", f"file grew past {cap:,} bytes while being read")
    return data, st, None


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def parse_document(
    path: str, data: bytes | None = None, *, regular: bool = False, nul_as_text: bool = False
) -> SkillDocument:
    """Read and split the skill file at `path` (or the given `data`); `regular` as for
    `read_bytes_safely`. With `nul_as_text` a NUL byte is reported (`binary-content`) but the
    file is still read as text, as runtimes that never check for binary content do."""
    doc = SkillDocument(path=path)
    if data is None:
        data, st, problem = read_bytes_safely(path, regular=regular)
        if st is not None:
            doc.size, doc.mtime_ns, doc.stamp = st.st_size, st.st_mtime_ns, file_stamp(st)
        if problem is not None:
            doc.findings.append(problem)
            return doc
    assert data is not None
    doc.size = doc.size or len(data)
    # `not data.strip()` without copying the file (bytes.isspace is the same ASCII white space).
    if not data or data.isspace():
        doc.findings.append(
            Finding(
                "empty-file",
                "the file is empty",
                1,
                1,
                "add frontmatter with name and description, then instructions",
            )
        )
        doc.text = ""
        return doc
    if data.startswith(_LFS_MAGIC):
        doc.findings.append(
            Finding(
                "git-lfs-pointer",
                "this is a Git LFS pointer file, not the skill's content",
                1,
                1,
                "run 'git lfs pull', or stop tracking SKILL.md with LFS",
            )
        )
        return doc
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data, nul)
        doc.findings.append(
            Finding(
                "binary-content",
                "the file contains NUL bytes: binary, not text",
                line,
                col,
                "save SKILL.md as UTF-8 text",
            )
        )
        if not nul_as_text:
            return doc
    if data.startswith(_BOM):
        doc.bom = True
        data = data[len(_BOM) :]
        doc.findings.append(
            Finding(
                "bom",
                "the file starts with a UTF-8 byte order mark",
                1,
                1,
                "save the file as UTF-8 without BOM",
            )
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, col = _line_col(data, err.start)
        doc.invalid_utf8 = True
        doc.findings.append(
            Finding(
                "invalid-utf8",
                f"invalid UTF-8 (byte 0x{data[err.start]:02x})",
                line,
                col,
                "re-save the file as UTF-8",
            )
        )
        text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        if "\r\n" in text:
            doc.line_ending = "\r\n"
            doc.findings.append(
                Finding(
                    "crlf",
                    "lines end with CRLF",
                    1,
                    1,
                    "most runtimes cope; save with LF line ends to be safe",
                )
            )
            text = text.replace("\r\n", "\n")
        if "\r" in text:
            doc.line_ending = "\r"
            doc.findings.append(
                Finding(
                    "cr-only", "lines end with a bare CR", 1, 1, "save the file with LF line ends"
                )
            )
            text = text.replace("\r", "\n")
    doc.text = text
    _split(doc, text)
    return doc


_HEAD_LINES = 64


def _head_decides(head: list[str]) -> bool:
    """Whether these complete lines (the file's first) hold the opening line, or a first non-blank
    line that is not '---', and the closing '---' line."""
    first = next((i for i, line in enumerate(head) if line.strip()), None)
    if first is None:
        return False
    return head[first].rstrip() != "---" or any(x.rstrip() == "---" for x in head[first + 1 :])


def _split_usual(doc: SkillDocument, text: str) -> bool:
    """`_split` for the usual file: '---' exactly on the first line, a closing line of exactly
    '---', a frontmatter of allowed size. Found by string search instead of splitting lines; False
    (nothing set) for anything else, which `_split` then handles line by line."""
    if not text.startswith("---\n"):
        return False
    at = 3  # each candidate is a line starting with '---': the "\n" before it is at `at`
    while True:
        at = text.find("\n---", at)
        if at < 0:
            return False  # unclosed: the general route reports it
        end = text.find("\n", at + 4)
        line = text[at + 1 :] if end < 0 else text[at + 1 : end]
        if line.rstrip() == "---":
            break
        at += 1
    if line != "---" or at - 4 > MAX_FRONTMATTER_CHARS:
        return False  # trailing white space, or too large: reported by the general route
    close = text.count("\n", 0, at + 1)  # 0-based line index of the closing line
    doc.frontmatter_first_line = 2
    doc.body = "" if end < 0 else text[end + 1 :]
    doc.body_first_line = close + 2
    doc.has_frontmatter = True
    doc.frontmatter_text = text[4:at] if at > 3 else ""
    return True


def _split(doc: SkillDocument, text: str) -> None:
    if not _split_usual(doc, text):
        _split_lines(doc, text)


def accept_frontmatter(doc: SkillDocument, fm: str, line: int) -> None:
    """Keep `fm` as the document's frontmatter, or, when it is over MAX_FRONTMATTER_CHARS,
    report it (`frontmatter-too-large`, at its opener's `line`) and leave it unparsed."""
    if len(fm) > MAX_FRONTMATTER_CHARS:
        doc.findings.append(
            Finding(
                "frontmatter-too-large",
                f"frontmatter is {len(fm):,} characters; it is not parsed",
                line,
                1,
                "keep frontmatter to a few short keys",
            )
        )
        return
    doc.has_frontmatter = True
    doc.frontmatter_text = fm


def _split_lines(doc: SkillDocument, text: str) -> None:
    """Split `text` line by line: the general route, which also reports every irregularity."""
    # Split only the head when it decides the frontmatter: the body stays one piece instead of
    # being cut into every line and joined again (a tenth of a large check's time).
    lines = text.split("\n", _HEAD_LINES)
    if len(lines) > _HEAD_LINES and not _head_decides(lines[:-1]):
        lines = text.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or lines[first].rstrip() != "---":
        doc.findings.append(
            Finding(
                "no-frontmatter",
                "the file does not start with a '---' frontmatter line",
                first + 1 if first < len(lines) else 1,
                1,
                "start the file with '---', name: and description: lines, '---'",
            )
        )
        doc.body, doc.body_first_line = text, 1
        return
    if first:
        doc.leading_blank_lines = first
        doc.findings.append(
            Finding(
                "leading-blank-lines",
                f"{first} blank line(s) before the opening '---'",
                1,
                1,
                "delete the blank lines so '---' is the first line",
            )
        )
    if lines[first] != "---":
        doc.findings.append(
            Finding(
                "delimiter-trailing-space",
                "trailing white space after '---'",
                first + 1,
                4,
                "remove the spaces after '---'",
            )
        )
    close = first + 1
    while close < len(lines) and lines[close].rstrip() != "---":
        close += 1
    if close >= len(lines):
        doc.findings.append(
            Finding(
                "frontmatter-unclosed",
                "the frontmatter has no closing '---' line",
                first + 1,
                1,
                "add a line with only '---' after the last key",
            )
        )
        doc.body, doc.body_first_line = "", len(lines)
        return
    if lines[close] != "---":
        doc.findings.append(
            Finding(
                "delimiter-trailing-space",
                "trailing white space after '---'",
                close + 1,
                4,
                "remove the spaces after '---'",
            )
        )
    fm = "\n".join(lines[first + 1 : close])
    doc.frontmatter_first_line = first + 2
    doc.body = "\n".join(lines[close + 1 :])
    doc.body_first_line = close + 2
    accept_frontmatter(doc, fm, first + 2)
