"""Notes where the Agent Skills reference validator (skills-ref, strictyaml) reads a skill file
otherwise than a runtime's YAML parser does: tokens strictyaml refuses, fields it leaves
unchecked."""

from __future__ import annotations

import re

from skillprism.core.document import Finding, SkillDocument
from skillprism.core.yamlread import YamlResult

_TAB_AFTER_KEY = re.compile(r"^[ ]*+[\w-]++:\t", re.M)


def reference_validator_notes(doc: SkillDocument, yml: YamlResult | None) -> list[Finding]:
    """Where skills-ref 0.1.1 would judge this file differently from the specification."""
    notes: list[Finding] = []
    msg_start = "'SKILL.md must start with YAML frontmatter (---)'"
    if doc.invalid_utf8:
        notes.append(
            Finding(
                "refval-crashes",
                "the reference validator crashes on invalid UTF-8 "
                "(UnicodeDecodeError) instead of reporting it",
                1,
                1,
            )
        )
    if doc.bom:
        notes.append(
            Finding(
                "refval-rejects-file", f"the reference validator rejects a BOM: {msg_start}", 1, 1
            )
        )
    elif doc.leading_blank_lines:
        notes.append(
            Finding(
                "refval-rejects-file",
                f"the reference validator rejects blank lines before '---': {msg_start}",
                1,
                1,
            )
        )
    tab = _TAB_AFTER_KEY.search(doc.frontmatter_text) if doc.has_frontmatter else None
    if tab is not None:
        notes.append(
            Finding(
                "refval-rejects-file",
                "the reference validator (strictyaml) rejects a tab after ':' (found character "
                "'\\t' that cannot start any token)",
                doc.frontmatter_first_line + doc.frontmatter_text.count("\n", 0, tab.start()),
                tab.end() - tab.start(),
                "put a space after ':' instead of a tab",
            )
        )
    if doc.has_frontmatter and "---" in doc.frontmatter_text:
        offset = doc.frontmatter_text.index("---")
        line = doc.frontmatter_first_line + doc.frontmatter_text.count("\n", 0, offset)
        notes.append(
            Finding(
                "refval-rejects-file",
                "the reference validator splits the file at this '---' inside a value and "
                "reads a truncated frontmatter",
                line,
                1,
                "avoid '---' inside frontmatter values",
            )
        )
    if yml is not None and not yml.failed:
        if yml.flow_style:
            notes.append(
                Finding(
                    "refval-flow-style",
                    "the reference validator (strictyaml) rejects flow-style YAML such as [a, b]",
                    yml.flow_style_at[0] or doc.frontmatter_first_line,
                    yml.flow_style_at[1] or 1,
                    "write lists as '- item' lines",
                )
            )
        if any(i.rule == "duplicate-key" for i in yml.issues):
            notes.append(
                Finding(
                    "refval-rejects-file",
                    "the reference validator (strictyaml) rejects duplicate keys",
                    doc.frontmatter_first_line,
                    1,
                )
            )
        notes.extend(_refval_strictyaml_tokens(doc))
        if isinstance(yml.data, dict):
            notes.extend(_refval_unchecked_fields(yml, doc))
    if doc.text and any(f.rule == "frontmatter-unclosed" for f in doc.findings):
        start = doc.text.find("---") + 3
        cut = doc.text.find("---", start)
        if start >= 3 and cut >= 0:
            notes.append(
                Finding(
                    "refval-rejects-file",
                    "the reference validator ends the frontmatter at this '---' (it splits on the "
                    "first two '---' anywhere) and may accept the file",
                    doc.text.count("\n", 0, cut) + 1,
                    1,
                )
            )
    return notes


# YAML reads '&', '*' or '!' as anchor, alias or tag only at the start of a node: at a line start,
# after white space, or after a flow '[', '{' or ','. "git:*" or "R&D" are plain text.
_TOKEN_START_SIGIL = re.compile(r"(?:^|[\s\[{,])[&*!](?=\S)", re.M)


def _refval_strictyaml_tokens(doc: SkillDocument) -> list[Finding]:
    """Anchors, aliases and tags parse here; strictyaml (skills-ref) refuses them."""
    text = doc.frontmatter_text
    # Only a '&', '*' or '!' that starts a token can be an anchor, alias or tag; "R&D" or "now!"
    # in a description cannot, and skipping the token scan for them keeps checks fast.
    if ("&" not in text and "*" not in text and "!" not in text) or not _TOKEN_START_SIGIL.search(
        text
    ):
        return []
    # PyYAML is imported here, on first need, as in yamlread: most checks never need it.
    import yaml

    from skillprism.core.yamlread import LOADER

    refuses = {
        yaml.AnchorToken: "anchors (&)",
        yaml.AliasToken: "aliases (*)",
        yaml.TagToken: "tags (!)",
    }
    try:
        for token in yaml.scan(text, Loader=LOADER):
            what = refuses.get(type(token))
            if what:
                return [
                    Finding(
                        "refval-rejects-file",
                        f"the reference validator (strictyaml) rejects YAML {what}",
                        doc.frontmatter_first_line + token.start_mark.line,
                        token.start_mark.column + 1,
                        "write plain values; quote text that starts with '&', '*' or '!'",
                    )
                ]
    except yaml.YAMLError:
        pass
    return []


def _refval_unchecked_fields(yml: YamlResult, doc: SkillDocument) -> list[Finding]:
    """Optional fields whose value the specification restricts but skills-ref never checks."""
    data = yml.data
    notes: list[Finding] = []
    for key in ("compatibility", "license", "allowed-tools", "metadata"):
        if key not in data:
            continue
        value = data[key]
        if key == "compatibility":
            bad, what = isinstance(value, str) and not value.strip(), "an empty 'compatibility'"
        elif key == "metadata":
            bad = not isinstance(value, dict) or any(not isinstance(v, str) for v in value.values())
            what = "any value of 'metadata' (it does not check for a string-to-string map)"
        else:
            bad = not isinstance(value, (str, list) if key == "allowed-tools" else str)
            what = f"any value of '{key}' (it does not check its type)"
        if bad:
            line, col = yml.key_positions.get((key,), (doc.frontmatter_first_line, 1))
            notes.append(
                Finding("refval-rejects-file", f"the reference validator accepts {what}", line, col)
            )
    return notes
