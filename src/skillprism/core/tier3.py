"""Tier 3: reading one resource of a skill, the way a runtime reaches it, without ever leaving the
skill folder.

A reference (a link in the body, or `skill://name/path`) is refused with a diagnostic before any file
is opened when it is empty or holds NUL/control characters, is absolute (POSIX, Windows drive, UNC,
`~`), contains a `..` segment (also percent-encoded, double-encoded, or a Unicode look-alike of `..`
or of a separator). What remains is resolved component by component below the skill folder's real
path: every symlink on the way is followed by hand, and one whose target leaves the folder (even if a
further link comes back) is refused, so nothing outside the folder is ever stat'ed through, listed or
opened. Reading itself goes through `document.read_bytes_safely` (FIFOs and devices are never opened);
the file read is checked to be the one resolved, so a swap in between is refused rather than shown.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
import struct
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from urllib.parse import unquote

from skillprism.core.containment import Refused, walk_inside
from skillprism.core.diagnostics import Diagnostic
from skillprism.core.document import read_bytes_safely
from skillprism.core.policy import Policy
from skillprism.core.resources import Resource, ResourceListing, list_resources

DEFAULT_MAX_BYTES = 256 * 1024
# Files up to this size are read whole and cut to the cap; larger ones are described, not read.
READ_CEILING = 8 * 1024 * 1024
MAX_REFERENCE_CHARS = 4096
MAX_DECODE_ROUNDS = 3
BINARY_SNIFF_BYTES = 8192
SKILL_URL_SCHEME = "skill://"

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Characters that look like a slash or backslash but are not one: a runtime (or a later tool) that
# folds them would see separators, so they are refused rather than trusted to stay literal.
_SLASH_LOOKALIKES = "\u2215\u2044\uff0f\u29f8\u2571\ufe68\uff3c\u29f5\u29f9\u2572"
_FOLD_SLASHES = str.maketrans({c: "/" for c in _SLASH_LOOKALIKES})

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "ELF executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"\xff\xfe", "UTF-16 text (not UTF-8)"),
    (b"\xfe\xff", "UTF-16 text (not UTF-8)"),
    (b"MZ", "Windows executable"),
)


@dataclass(frozen=True, slots=True)
class ResourceResult:
    """What reading one reference yields. Refused: `ok` is False, `refusal` says why, nothing else
    is set. Allowed: `path` is the real path read; `content` is the text shown (None for a binary
    file, which `description` describes); a directory gives its `listing` (and a text rendering of
    it as `content`). `chars`/`tokens` are the cost of delivering `content` to a model."""

    ok: bool
    reference: str
    skill_dir: str
    skill_name: str = ""
    rel_path: str = ""  # '/'-separated, relative to the skill folder, as requested
    path: str | None = None
    kind: str = ""  # text | binary | directory | too-large
    content: str | None = None
    media_type: str = ""
    size: int = 0
    truncated: bool = False
    description: str = ""
    listing: tuple[Resource, ...] = ()
    refusal: Diagnostic | None = None
    notes: tuple[Diagnostic, ...] = ()
    chars: int = 0
    tokens: int | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    @property
    def url(self) -> str:
        """The `skill://` address of this resource (empty without a skill name)."""
        if not self.skill_name:
            return ""
        return f"{SKILL_URL_SCHEME}{self.skill_name}" + (
            f"/{self.rel_path}" if self.rel_path else ""
        )


def _note(
    policy: Policy, rule_name: str, message: str, path: str, hint: str, effect: str
) -> Diagnostic | None:
    return policy.report(rule_name, message, path, hint=hint, effect=effect)


def media_type_of(path: str) -> str:
    """The media type a runtime reports: Markdown for `.md`, plain text for anything else
    (oh-my-pi's `skill://` handler)."""
    return "text/markdown" if path.lower().endswith(".md") else "text/plain"


# --- lexical guards: all of them run before anything touches the file system -----------------------


def _strip_url_suffix(reference: str) -> str:
    """Drop a `#fragment` and `?query`, as a Markdown link or URL carries them."""
    return reference.split("#", 1)[0].split("?", 1)[0]


def _decodings(reference: str) -> tuple[str, list[str]]:
    """The reference decoded once (the path used) and every form met while decoding it until stable
    (the forms checked). Encoded more than MAX_DECODE_ROUNDS times is refused."""
    forms = [reference]
    current = reference
    for _ in range(MAX_DECODE_ROUNDS):
        decoded = unquote(current)
        if decoded == current:
            break
        forms.append(decoded)
        current = decoded
    else:
        if unquote(current) != current:
            raise Refused(
                "reference-invalid",
                f"reference '{reference}' is percent-encoded more than {MAX_DECODE_ROUNDS} times",
                "write the path plainly, e.g. references/guide.md",
            )
    return forms[1] if len(forms) > 1 else forms[0], forms


def _check_form(form: str, reference: str, how: str = "") -> None:
    """Refuse one form (raw, decoded or Unicode-folded) of a reference that is not a plain relative
    path. `how` says how the form was derived, for the message (e.g. " (after percent-decoding)")."""
    if "\x00" in form:
        raise Refused(
            "reference-invalid",
            f"reference {reference!r} contains a NUL byte{how}",
            "remove the NUL (or %00) from the path",
        )
    if _CONTROL.search(form):
        raise Refused(
            "reference-invalid",
            f"reference {reference!r} contains control characters{how}",
            "file names in skills should be plain printable text",
        )
    absolute_hint = "refer to files relative to the skill folder, e.g. references/guide.md"
    if form.startswith(("\\\\", "//", "\\/", "/\\")):
        raise Refused("reference-absolute", f"UNC / network path '{reference}'{how}", absolute_hint)
    if form.startswith(("/", "\\")):
        raise Refused("reference-absolute", f"absolute path '{reference}'{how}", absolute_hint)
    if _DRIVE.match(form):
        raise Refused("reference-absolute", f"Windows drive path '{reference}'{how}", absolute_hint)
    segments = re.split(r"[/\\]", form)
    if segments[0].startswith("~"):
        raise Refused(
            "reference-absolute",
            f"home-relative path '{reference}'{how}: '~' is never expanded",
            absolute_hint,
        )
    for seg in segments:
        if seg == "..":
            raise Refused(
                "reference-escapes",
                f"reference '{reference}' contains a '..' segment{how}",
                "refer to files inside the skill folder without '..'",
            )
        # Windows drops trailing dots and spaces: '...' and '.. ' name the parent there.
        if seg.count(".") >= 2 and not seg.strip(". "):
            raise Refused(
                "reference-escapes",
                f"reference '{reference}' has the segment '{seg}', which Windows reads as '..'{how}",
                "rename the file or folder",
            )


def _guard(reference: str) -> tuple[str, ...]:
    """The path segments of a reference, or Refused. Touches nothing on disk."""
    if not reference or not reference.strip():
        raise Refused("reference-invalid", "empty reference", "name a file in the skill folder")
    if len(reference) > MAX_REFERENCE_CHARS:
        raise Refused(
            "reference-invalid",
            f"reference is {len(reference):,} characters long",
            "use a short path relative to the skill folder",
        )
    # NUL and control characters are refused before anything else, in the raw form too.
    _check_form(reference, reference)
    stripped = _strip_url_suffix(reference)
    if not stripped:
        raise Refused(
            "reference-invalid",
            f"reference '{reference}' names no file (only a fragment or query)",
            "name a file in the skill folder",
        )
    used, forms = _decodings(stripped)
    for rounds, form in enumerate(forms):
        how = f" (after percent-decoding {rounds}x)" if rounds else ""
        _check_form(form, reference, how)
        folded = unicodedata.normalize("NFKC", form.translate(_FOLD_SLASHES))
        if folded != form:
            _check_form(folded, reference, how + " (after folding Unicode look-alikes)")
    return tuple(s for s in re.split(r"[/\\]", used) if s not in ("", "."))


# A path of plain segments (each starting with a letter, digit or '_'): nothing the guard refuses
# can hide in it, so the common case skips the decoding and folding rounds.
_PLAIN_REFERENCE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*")


def reference_form_problem(reference: str) -> tuple[str, str, str] | None:
    """The tier-3 guard's verdict on a reference's form alone, touching nothing on disk: None when
    acceptable, else (rule, message, hint). `check` uses it so that it and `resource` agree."""
    if _PLAIN_REFERENCE.fullmatch(reference):
        return None
    try:
        _guard(reference)
    except Refused as refused:
        return refused.rule_name, refused.message, refused.hint
    return None


# --- reading --------------------------------------------------------------------------------------


def _binary_kind(data: bytes) -> str:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP image"
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            if kind == "PNG image" and len(data) >= 24 and data[12:16] == b"IHDR":
                width, height = struct.unpack(">II", data[16:24])
                return f"PNG image {width}x{height}"
            return kind
    return "binary file"


def _decode(data: bytes, cut: bool) -> tuple[str | None, str]:
    """Text of `data` (None when binary) and a description of what it is."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None, _binary_kind(data)
    try:
        if cut:  # the cut may split one UTF-8 sequence: hold back the incomplete tail
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
        else:
            text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        kind = _binary_kind(data)
        if kind == "binary file":
            kind = f"binary file (invalid UTF-8 at byte {err.start:,})"
        return None, kind
    return text, "text"


def _listing_text(rel_dir: str, items: list[Resource]) -> str:
    if not items:
        return f"{rel_dir or '.'}/: empty\n"
    lines = [f"{rel_dir or '.'}/: {len(items):,} file(s)"]
    groups: dict[str, list[Resource]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    for group, members in groups.items():
        lines.append(f"{group}:")
        lines.extend(
            f"  {r.rel_path} [symlink leading outside the skill folder: not followed, not readable]"
            if r.escapes
            else f"  {r.rel_path} ({r.size:,} bytes)"
            for r in members
        )
    return "\n".join(lines) + "\n"


def grouped_listing(skill_dir: str, *, limit: int | None = None) -> dict[str, list[Resource]]:
    """A skill's files grouped by scripts / references / assets / other."""
    listing = list_resources(skill_dir) if limit is None else list_resources(skill_dir, limit=limit)
    return listing.grouped()


def resolve_reference(
    skill_dir: str,
    reference: str,
    *,
    skill_name: str = "",
    only_listed: bool = False,
    listing: ResourceListing | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    count_tokens: Callable[[str], int] | None = None,
    policy: Policy | None = None,
) -> ResourceResult:
    """Resolve `reference` relative to `skill_dir` and read it, or refuse it with a diagnostic.

    `only_listed` (autopoiesis): only files in the discovered `listing` (default: listed now) are
    served. `max_bytes`: longer files are cut (`truncated`, with a note). `count_tokens` prices the
    content in tokens; without it `tokens` is None. `policy` reports the findings (the catalog's,
    so the profile's rules and the project's settings apply; the registry defaults without)."""
    policy = policy or Policy()
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    base = ResourceResult(ok=False, reference=reference, skill_dir=skill_dir, skill_name=skill_name)
    try:
        segments = _guard(reference)
        return _read(base, segments, only_listed, listing, max_bytes, count_tokens, policy)
    except Refused as why:
        return _refuse(base, why, policy)


def _refuse(base: ResourceResult, why: Refused, policy: Policy) -> ResourceResult:
    prefix = f"{base.skill_name}: " if base.skill_name else ""
    # The refusal is the result itself: it is explained even where the finding would be dropped.
    diag = policy.report(
        why.rule_name,
        prefix + why.message,
        base.skill_dir,
        hint=why.hint,
        effect=why.effect,
        always=True,
    )
    return ResourceResult(
        ok=False,
        reference=base.reference,
        skill_dir=base.skill_dir,
        skill_name=base.skill_name,
        refusal=diag,
    )


def _read(
    base: ResourceResult,
    segments: tuple[str, ...],
    only_listed: bool,
    listing: ResourceListing | None,
    max_bytes: int,
    count_tokens: Callable[[str], int] | None,
    policy: Policy,
) -> ResourceResult:
    rel = "/".join(segments)
    real, st = walk_inside(base.skill_dir, segments)
    real_root = os.path.realpath(base.skill_dir)

    def priced(text: str | None) -> tuple[int, int | None]:
        if text is None:
            return 0, (0 if count_tokens else None)
        return len(text), (count_tokens(text) if count_tokens else None)

    if stat.S_ISDIR(st.st_mode):
        found = listing if listing is not None else list_resources(real_root)
        real_rel = os.path.relpath(real, real_root).replace(os.sep, "/")
        real_rel = "" if real_rel == "." else real_rel
        items = [r for r in found.items if not real_rel or r.rel_path.startswith(real_rel + "/")]
        text = _listing_text(rel, items)
        chars, tokens = priced(text)
        truncated = (
            _note(
                policy,
                "resources-truncated",
                f"the skill folder holds more than {len(found.items):,} files; only those are "
                "listed",
                real_root,
                "keep large data sets out of skill folders",
                "files beyond the bound are not listed",
            )
            if found.truncated
            else None
        )
        return ResourceResult(
            ok=True,
            reference=base.reference,
            skill_dir=base.skill_dir,
            skill_name=base.skill_name,
            rel_path=rel,
            path=real,
            kind="directory",
            content=text,
            media_type="text/plain",
            description=f"folder with {len(items):,} file(s)",
            listing=tuple(items),
            notes=(truncated,) if truncated is not None else (),
            truncated=found.truncated,
            chars=chars,
            tokens=tokens,
        )
    if only_listed:
        found = listing if listing is not None else list_resources(real_root)
        if rel not in {r.rel_path for r in found.items if not r.escapes}:
            raise Refused(
                "resource-not-listed",
                f"'{rel}' is not among the {len(found.items):,} files discovered in the skill",
                "this runtime serves only files present when the skill was discovered; "
                "reload the skills after adding files",
                "the runtime refuses to read it",
            )
    if not stat.S_ISREG(st.st_mode):
        raise Refused(
            "resource-unreadable",
            f"'{rel}' is not a regular file (FIFO, socket or device); it is never opened",
            "replace it with an ordinary file",
        )
    media = media_type_of(real)
    size = st.st_size
    common = {
        "ok": True,
        "reference": base.reference,
        "skill_dir": base.skill_dir,
        "skill_name": base.skill_name,
        "rel_path": rel,
        "path": real,
        "media_type": media,
        "size": size,
    }
    if size > max(max_bytes, READ_CEILING):
        note = _note(
            policy,
            "resource-truncated",
            f"'{rel}' is {size:,} bytes; over {READ_CEILING:,} bytes it is not read at all",
            real,
            "split it, or keep large data out of skills",
            "nothing of it is shown",
        )
        return ResourceResult(
            **common,  # type: ignore[arg-type]
            kind="too-large",
            truncated=True,
            description=f"file of {size:,} bytes, too large to read",
            notes=(note,) if note is not None else (),
            tokens=0 if count_tokens else None,
        )
    data, fst, problem = read_bytes_safely(real, cap=max(max_bytes, READ_CEILING))
    if problem is not None or data is None:
        message = problem.message if problem is not None else "cannot read the file"
        raise Refused("resource-unreadable", f"'{rel}': {message}", problem.hint if problem else "")
    if fst is None or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
        raise Refused(
            "resource-unreadable",
            f"'{rel}' changed while being read (replaced between check and open)",
            "read it again",
        )
    size = len(data)
    cut = size > max_bytes
    text, kind = _decode(data[:max_bytes] if cut else data, cut)
    notes: list[Diagnostic | None] = []
    if text is None:
        notes.append(
            _note(
                policy,
                "resource-binary",
                f"'{rel}' is a {kind} of {size:,} bytes; it is described, not shown",
                real,
                "binary assets are fine to ship; the model only sees this description",
                "described, not shown",
            )
        )
        chars, tokens = priced(None)
        return ResourceResult(
            **{**common, "size": size},  # type: ignore[arg-type]
            kind="binary",
            description=f"{kind}, {size:,} bytes",
            notes=tuple(n for n in notes if n is not None),
            chars=chars,
            tokens=tokens,
        )
    if cut:
        notes.append(
            _note(
                policy,
                "resource-truncated",
                f"'{rel}' is {size:,} bytes; only the first {max_bytes:,} are shown",
                real,
                "split the file into smaller references",
                "the rest is not shown",
            )
        )
    chars, tokens = priced(text)
    return ResourceResult(
        **{**common, "size": size},  # type: ignore[arg-type]
        kind="text",
        content=text,
        truncated=cut,
        description=f"text, {size:,} bytes" + (f", cut at {max_bytes:,}" if cut else ""),
        notes=tuple(n for n in notes if n is not None),
        chars=chars,
        tokens=tokens,
    )


def _skill_file(skill_dir: str) -> str:
    for name in ("SKILL.md", "skill.md"):
        if os.path.lexists(os.path.join(skill_dir, name)):
            return name
    return "SKILL.md"


def resolve_skill_url(
    url: str,
    skills: Mapping[str, str],
    *,
    only_listed: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    count_tokens: Callable[[str], int] | None = None,
    policy: Policy | None = None,
) -> ResourceResult:
    """Read `skill://name` (the skill file) or `skill://name/rel/path` (inside that skill folder).
    `skills` maps each name to its folder; the name must match exactly. The path is URL-decoded
    (encoded escapes are still refused)."""
    policy = policy or Policy()
    base = ResourceResult(ok=False, reference=url, skill_dir="")
    if not url.lower().startswith(SKILL_URL_SCHEME):
        return _refuse(
            base,
            Refused(
                "skill-url-invalid",
                f"'{url}' is not a skill:// URL",
                "write skill://<name> or skill://<name>/<path>",
            ),
            policy,
        )
    rest = _strip_url_suffix(url[len(SKILL_URL_SCHEME) :])
    name, _, rel = rest.partition("/")
    if not name:
        return _refuse(
            base,
            Refused(
                "skill-url-invalid",
                f"'{url}' names no skill",
                "write skill://<name> or skill://<name>/<path>",
            ),
            policy,
        )
    if name not in skills:
        known = ", ".join(sorted(skills)[:8]) or "none"
        return _refuse(
            base,
            Refused(
                "skill-url-invalid",
                f"no skill is named exactly '{name}' (known: {known})",
                "use the skill's name as listed, same case",
            ),
            policy,
        )
    skill_dir = skills[name]
    if not rel:
        result = resolve_reference(
            skill_dir,
            _skill_file(skill_dir),
            skill_name=name,
            max_bytes=max_bytes,
            count_tokens=count_tokens,
            policy=policy,
        )
        return _with_reference(result, url)
    result = resolve_reference(
        skill_dir,
        rel,
        skill_name=name,
        only_listed=only_listed,
        max_bytes=max_bytes,
        count_tokens=count_tokens,
        policy=policy,
    )
    return _with_reference(result, url)


def _with_reference(result: ResourceResult, url: str) -> ResourceResult:
    return replace(result, reference=url)
