"""Frontmatter framing as one runtime does it: which line opens the block, which closes it, what
may come before the opener, and whether a NUL byte makes the file binary.

`document.parse_document` splits every file the usual way (an opening `---` line after optional
blank lines, a closing `---` line, trailing spaces allowed). A profile whose `[frontmatter]`
framing keys say otherwise (docs/profiles.md: `opener`, `closer`, `before_opener`, `nul_bytes`,
`bom`) gets the same file split again its own way by `frame`, once per framing (cached on the
document).
"""

from __future__ import annotations

import re
from dataclasses import replace

from skillprism.core.document import (
    Finding,
    SkillDocument,
    accept_frontmatter,
    parse_document,
)
from skillprism.core.profiles import Framing

# Findings that come from the split, which a framing of its own decides again.
SPLIT_RULES = frozenset(
    {
        "no-frontmatter",
        "frontmatter-unclosed",
        "frontmatter-too-large",
        "leading-blank-lines",
        "delimiter-trailing-space",
        "delimiter-lenient",
    }
)


def frame(doc: SkillDocument, framing: Framing) -> SkillDocument:
    """`doc` split the way `framing` says (the document itself for the usual framing)."""
    if framing.default:
        return doc
    cached = doc._framed.get(framing)
    if cached is not None:
        return cached
    source = doc
    if (
        framing.nul_bytes != "binary"
        and not doc.readable
        and any(f.rule == "binary-content" for f in doc.findings)
    ):
        source = parse_document(doc.path, nul_as_text=True)
    if source.text is None:
        out = source
    else:
        out = replace(
            source,
            findings=[f for f in source.findings if f.rule not in SPLIT_RULES],
            has_frontmatter=False,
            frontmatter_text="",
            frontmatter_first_line=0,
            body="",
            body_first_line=1,
            leading_blank_lines=0,
            _yaml={},
            _framed={},
        )
        text = out.text or ""
        if framing.bom == "text" and out.bom:
            # the mark stays a character of the text (python-frontmatter does not remove it)
            text = "\ufeff" + text
        split_framed(out, text, framing)
    doc._framed[framing] = out
    return out


# `dashes`: Python's `^-{3,}\s*$` on one line (python-frontmatter, Mistral Vibe's parser).
_DASHES = re.compile(r"-{3,}\s*")


def _opens(line: str, opener: str) -> bool:
    if opener == "dashes":
        return _DASHES.fullmatch(line) is not None
    if opener == "trimmed-dashes":  # the whole text strip()ped first: python-frontmatter
        return _DASHES.fullmatch(line.lstrip()) is not None
    if opener == "trimmed":
        return line.strip() == "---"
    if opener == "exact":
        return line == "---"
    if opener == "prefix":
        return line.startswith("---")
    if opener == "prefix3":
        return line.startswith("---") and not line.startswith("----")
    return line.rstrip() == "---"


def _closes(line: str, closer: str) -> bool:
    if closer == "dashes":
        return _DASHES.fullmatch(line) is not None
    if closer == "trimmed":
        return line.strip() == "---"
    if closer == "prefix":
        return line.startswith("---")
    return line.rstrip() == "---"


def split_framed(doc: SkillDocument, text: str, framing: Framing) -> None:
    """Split `text` (line ends already LF) into frontmatter and body per `framing`, with the
    findings the usual split reports, worded for this framing."""
    lines = text.split("\n")
    first = 0
    if framing.bare_cr == "text" and doc.line_ending == "\r":
        doc.findings.append(
            Finding(
                "no-frontmatter",
                "the lines end with a bare CR, which the runtime's frontmatter pattern does not "
                "take for a line end, so it sees no frontmatter",
                1,
                1,
                "save the file with LF line ends",
            )
        )
        # the runtime reads one line: the text as written, its bare CRs kept
        doc.body, doc.body_first_line = text.replace("\n", "\r"), 1
        return
    if framing.before_opener == "blank-lines":
        while first < len(lines) and not lines[first].strip():
            first += 1
    elif framing.before_opener == "anything":
        # the text is split at the first opening line, whatever comes before it (Continue)
        first = next((i for i, line in enumerate(lines) if _opens(line, framing.opener)), 0)
    if first >= len(lines) or not _opens(lines[first], framing.opener):
        what = {
            "exact": "a line of exactly '---'",
            "trimmed": "a '---' line (spaces around it allowed)",
            "prefix": "a line starting with '---'",
            "prefix3": "a line starting with '---' and no fourth '-'",
            "dashes": "a line of three or more '-'",
            "trimmed-dashes": "a line of three or more '-' (spaces around it allowed)",
            "line": "a '---' line",
        }[framing.opener]
        where = {
            "blank-lines": "",
            "nothing": " (nothing may come before it)",
            "anything": " anywhere",
        }[framing.before_opener]
        doc.findings.append(
            Finding(
                "no-frontmatter",
                f"the file does not start with {what}{where}, so the runtime sees no frontmatter"
                if framing.before_opener != "anything"
                else f"the file has no {what[2:] if what.startswith('a ') else what}, so the "
                "runtime sees no frontmatter",
                first + 1 if first < len(lines) else 1,
                1,
                "start the file with '---', name: and description: lines, '---'",
            )
        )
        doc.body, doc.body_first_line = text, 1
        return
    if first and framing.before_opener == "blank-lines":
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
    opener = lines[first]
    if opener != "---":
        rule = "delimiter-trailing-space" if opener.rstrip() == "---" else "delimiter-lenient"
        doc.findings.append(
            _delimiter_finding(
                rule, opener, first + 1, "opens", framing.opener in ("dashes", "trimmed-dashes")
            )
        )
    if framing.closer == "substring":
        _split_at_substring(doc, lines, first, framing)
        return
    close = first + 1
    while close < len(lines) and not _closes(lines[close], framing.closer):
        close += 1
    if close >= len(lines):
        to_end = framing.unclosed == "to-end"
        doc.findings.append(
            Finding(
                "frontmatter-unclosed",
                "the frontmatter has no closing '---' line"
                + ("; the runtime reads the rest of the file as frontmatter" if to_end else ""),
                first + 1,
                1,
                "add a line with only '---' after the last key",
            )
        )
        if not to_end:
            # no frontmatter at all: the whole file is the body
            doc.body, doc.body_first_line = text, 1
            return
        doc.body, doc.body_first_line = "", len(lines)
    else:
        closer = lines[close]
        if closer != "---":
            rule = "delimiter-trailing-space" if closer.rstrip() == "---" else "delimiter-lenient"
            doc.findings.append(
                _delimiter_finding(rule, closer, close + 1, "closes", framing.closer == "dashes")
            )
    # A prefix opener reads from the fifth character on, as `text.slice(4)` does: the rest of a
    # longer opener line ('----', '--- x') is the frontmatter's first line.
    head = [opener[4:]] if framing.opener.startswith("prefix") and len(opener) > 4 else []
    fm = "\n".join([*head, *lines[first + 1 : close]])
    if framing.keep_last_line_break and close < len(lines):
        fm += "\n"
    doc.frontmatter_first_line = first + (1 if head else 2)
    if close < len(lines):
        doc.body = "\n".join(lines[close + 1 :])
        doc.body_first_line = close + 2
    accept_frontmatter(doc, fm, first + 2)


def _split_at_substring(doc: SkillDocument, lines: list[str], first: int, framing: Framing) -> None:
    """The frontmatter ends at the first `---` after the opening line, wherever it is, even
    inside a value; the white space after it is dropped (Claude Code's `^---\\s*\\n([\\s\\S]*?)---\\s*\\n?`).
    """
    rest = "\n".join(lines[first + 1 :])
    at = rest.find("---")
    if at < 0:
        doc.findings.append(
            Finding(
                "frontmatter-unclosed",
                "the frontmatter has no closing '---'; the runtime reads the whole file as the body",
                first + 1,
                1,
                "add a line with only '---' after the last key",
            )
        )
        doc.body, doc.body_first_line = "\n".join(lines), 1
        return
    close = first + 1 + rest.count("\n", 0, at)
    if lines[close] != "---":
        doc.findings.append(
            Finding(
                "delimiter-lenient",
                f"the '---' in {lines[close][:40]!r} closes the frontmatter for this runtime (it "
                "ends the block at the first '---' anywhere); most runtimes need a line of "
                "exactly '---'",
                close + 1,
                at - rest.rfind("\n", 0, at),  # 1-based column of the '---' in its line
                "write the delimiter as '---' alone on its line; keep '---' out of values",
            )
        )
    fm = rest[:at]
    after = rest[at + 3 :]
    body = after.lstrip()
    doc.frontmatter_first_line = first + 2
    doc.body = body
    doc.body_first_line = close + 1 + after[: len(after) - len(body)].count("\n")
    accept_frontmatter(doc, fm, first + 2)


def _delimiter_finding(
    rule: str, line: str, line_no: int, verb: str, dashes: bool = False
) -> Finding:
    if rule == "delimiter-trailing-space":
        return Finding(
            rule, "trailing white space after '---'", line_no, 4, "remove the spaces after '---'"
        )
    why = (
        "any line of three or more dashes delimits it"
        if dashes
        else "it only looks at the first three characters"
    )
    return Finding(
        rule,
        f"{line[:20]!r} {verb} the frontmatter for this runtime ({why}); most runtimes need a "
        "line of exactly '---'",
        line_no,
        1,
        "write the delimiter as '---' alone on its line",
    )
