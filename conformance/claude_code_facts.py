#!/usr/bin/env python3
"""Check the claude-code profile against the JavaScript inside Claude Code 2.1.330.

    python3 conformance/claude_code_facts.py                 # text report
    python3 conformance/claude_code_facts.py --format json   # the facts as JSON
    python3 conformance/claude_code_facts.py --skillprism .venv/bin/skillprism   # + tier-1 runs

Claude Code (npm `@anthropic-ai/claude-code`, a Bun-compiled native binary) lists skills only
inside a model session, which needs the network and a login. So instead of running a session,
this script reads the JavaScript embedded in the pinned binary (installed by install_bin.py,
never committed), finds the code of the `skill_listing` attachment and of its budget, and
reports each fact with the byte offset in the binary where it was found, the value found and
the value in resources/profiles/claude-code.toml.

The listing function itself (with the entry cut, the budget and the header renderer) is then
cut out of the binary and run under node on synthetic, ASCII-only skill lists; with
`--skillprism`, Skill Prism's `prompt --profile claude-code` renders the same skills and the two
texts are compared. Helpers the listing calls that need a live session (settings, feature
flags, telemetry, the skill-override lookup, the terminal-width function that needs Claude
Code's own Bun build) are replaced by stubs, named in the report.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from binlab import (
    PACKAGES,
    BunImage,
    LabError,
    Module,
    _skip_balanced,
    binary_path,
    byte_offset,
    called_names,
    function_source,
    run_js,
)

REPO = Path(__file__).resolve().parent.parent
# The model a 2.1.330 session uses with default settings (what `claude -p` sends in the lab,
# conformance/drivers/claude-code.py): its characters per token and the listing's form follow it.
DEFAULT_MODEL = "claude-opus-5-5"
PROFILE = REPO / "resources" / "profiles" / "claude-code.toml"


@dataclass
class Fact:
    name: str
    found: object
    profile: object
    status: str  # "match", "differs", "not-modelled", "not-found"
    offset: int | None = None
    where: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict)


class Extractor:
    """Locates the listing code in the binary and keeps the pieces needed to run it."""

    def __init__(self, image: BunImage):
        self.image = image
        anchor = image.find(b"skillListingMaxDescChars??")
        if not anchor:
            raise LabError("skillListingMaxDescChars not found: the listing code moved")
        self.mod: Module = image.module_at(anchor.start())
        self.src = self.mod.text(image.blob)

    def off(self, index: int) -> int:
        return byte_offset(self.mod, self.src, index)

    def search(self, pattern: str) -> re.Match[str]:
        m = re.search(pattern, self.src, re.S)
        if not m:
            raise LabError(f"pattern not found in {self.mod.name}: {pattern[:80]}")
        return m

    def const(self, var: str) -> tuple[float | int, int]:
        m = self.search(r"(?<![\w$.])" + re.escape(var) + r"=(-?[0-9][0-9.e+]*)(?![\w$])")
        text = m.group(1)
        value = float(text) if any(c in text for c in ".e") else int(text)
        if isinstance(value, float) and value.is_integer() and "e" in text:
            value = int(value)
        return value, self.off(m.start())

    def enclosing_function(self, needle: str) -> tuple[str, str, int]:
        idx = self.src.find(needle)
        if idx < 0:
            raise LabError(f"{needle!r} not found")
        for m in reversed(list(re.finditer(r"function ([\w$]+)\(", self.src[:idx]))):
            fn, at = function_source(self.src, m.group(1))
            if at <= idx < at + len(fn):
                return m.group(1), fn, at
        raise LabError(f"no function encloses {needle!r}")


def load_profile() -> dict:
    with PROFILE.open("rb") as fh:
        return tomllib.load(fh)


def gather(ex: Extractor, profile: dict) -> tuple[list[Fact], dict]:
    facts: list[Fact] = []
    t1 = profile.get("tier1", {})
    budget = t1.get("budget", {})
    parts: dict = {}

    # 1. per-entry cap
    m = ex.search(
        r"function ([\w$]+)\(\)\{return [\w$]+\(\)\.skillListingMaxDescChars\?\?([\w$]+)\}"
    )
    parts["cap_fn"] = m.group(1)
    cap, cap_at = ex.const(m.group(2))
    facts.append(
        Fact(
            "entry cap (skillListingMaxDescChars default)",
            cap,
            budget.get("entry_cap_chars"),
            "match" if cap == budget.get("entry_cap_chars") else "differs",
            cap_at,
            f"{m.group(2)}={cap}; {m.group(0)} at {ex.off(m.start())}",
        )
    )

    # 2. how an entry over the cap is cut
    m = ex.search(
        r"function ([\w$]+)\(([\w$]+)\)\{let ([\w$]+)=([\w$]+)\(\2\),([\w$]+)="
        + re.escape(parts["cap_fn"])
        + r'\(\);return \3\.length>\5\?\3\.slice\(0,\5-1\)\+"(\\u2026|…)":\3\}'
    )
    parts["cut_fn"], parts["desc_fn"] = m.group(1), m.group(4)
    suffix = "…"
    profile_cut = (budget.get("entry_cap_chars"), budget.get("cut_suffix", ""))
    facts.append(
        Fact(
            "entry cut",
            f"text.slice(0, cap - 1) + {suffix!r} when text.length > cap (the entry is cap "
            "characters long)",
            f"entry_cap_chars = {profile_cut[0]}, cut_suffix = {profile_cut[1]!r}",
            "match" if profile_cut == (cap, suffix) else "differs",
            ex.off(m.start()),
            m.group(0),
        )
    )

    # 3. listed description: listingDescription ?? description, when_to_use joined with ' - '
    fn, at = function_source(ex.src, parts["desc_fn"])
    joiner = re.search(r"whenToUse\?`\$\{[\w$]+\}(.*?)\$\{[\w$]+\.whenToUse\}`", fn)
    found_joiner = joiner.group(1) if joiner else None
    facts.append(
        Fact(
            "description + when_to_use joiner",
            found_joiner,
            t1.get("description_joiner"),
            "match" if found_joiner == t1.get("description_joiner") else "differs",
            ex.off(at),
            fn,
            "The description is listingDescription ?? description (listingDescription is not a "
            "frontmatter field Skill Prism knows).",
        )
    )

    # 4. budget
    m = ex.search(
        r"function ([\w$]+)\(([\w$]+),([\w$]+)=([\w$]+)\)\{let ([\w$]+)=[\w$]+\("
        r"process\.env\.SLASH_COMMAND_TOOL_CHAR_BUDGET\)"
    )
    parts["budget_fn"] = m.group(1)
    bfn, bat = function_source(ex.src, m.group(1))
    bpt, _ = ex.const(m.group(4))
    mm = re.search(r"\(([\w$]+)\?\?([\w$]+)\)\*([\w$]+)\*\(([\w$]+)\?\?([\w$]+)\)", bfn)
    if not mm:
        raise LabError("budget formula not found")
    ctx_default, _ = ex.const(mm.group(2))
    fraction, frac_at = ex.const(mm.group(5))
    facts.append(
        Fact(
            "budget fraction default (skillListingBudgetFraction)",
            fraction,
            budget.get("context_fraction"),
            "match" if fraction == budget.get("context_fraction") else "differs",
            frac_at,
            bfn,
        )
    )
    # the attachment builder passes the session model's value (NS(loopModel)), not the default
    bpt = model_chars_per_token(ex.image, DEFAULT_MODEL) or bpt
    fallback = int(ctx_default * bpt * fraction)
    facts.append(
        Fact(
            "budget when the context window is unknown",
            f"floor({ctx_default} tokens x {bpt} ({DEFAULT_MODEL}) x {fraction}) = {fallback}",
            budget.get("fallback_chars"),
            "match" if fallback == budget.get("fallback_chars") else "differs",
            ex.off(bat),
            "SLASH_COMMAND_TOOL_CHAR_BUDGET (a number) wins over everything; result is "
            "max(1, floor(...), a server-side minimum flag capped at 100000 when no fraction is set)",
        )
    )
    facts.append(
        Fact(
            "SLASH_COMMAND_TOOL_CHAR_BUDGET overrides the budget",
            True,
            profile.get("settings", {}).get("env", {}).get("SLASH_COMMAND_TOOL_CHAR_BUDGET")
            == "budget_chars",
            "match",
            ex.off(bat),
        )
    )
    # bytes (characters) per token: a per-model function, not the constant
    bpt_fact = per_model_chars_per_token(ex.image, bpt, budget.get("chars_per_token"))
    facts.append(bpt_fact)

    # 5. the listing function
    name, lfn, lat = ex.enclosing_function("Skill listing over budget:")
    parts["list_fn"] = name
    parts["list_src"] = lfn
    entry_ok = "`- ${" in lfn and re.search(
        r"full:`\$\{([\w$]+)\}: \$\{" + re.escape(parts["cut_fn"]) + r"\(", lfn
    )
    found_entry = "- {name}: {cut(description)}" if entry_ok else "not recognised"
    facts.append(
        Fact(
            "entry format",
            found_entry,
            t1.get("entry"),
            "match" if entry_ok and t1.get("entry") == "- {name}: {description}" else "differs",
            ex.off(lat),
            f"function {name}",
        )
    )
    facts.append(
        Fact(
            "name-only entry",
            "- {name}" if re.search(r"=`- \$\{[\w$]+\.name\}`", lfn) else "not recognised",
            t1.get("entry_name_only"),
            "match" if t1.get("entry_name_only") == "- {name}" else "differs",
            ex.off(lat),
        )
    )
    sep_ok = ".join(`\n`)" in lfn
    facts.append(
        Fact(
            "entry separator",
            "\\n" if sep_ok else "not recognised",
            t1.get("separator"),
            "match" if sep_ok and t1.get("separator") == "\n" else "differs",
            ex.off(lat),
        )
    )
    width = re.search(r"reduce\(\(([\w$]+),([\w$]+)\)=>\1\+([\w$]+)\(\2\.full\),0\)", lfn)
    parts["width_fn"] = width.group(3) if width else None
    width_def = ex.image.find(
        re.compile(
            rb"function "
            + re.escape((parts["width_fn"] or "?").encode())
            + rb"\(e\)\{return ([\w$]+)\(e\)\+[\w$]+\(e\)\}function \1\(e\)\{return Bun\.stringWidth"
        )
    )
    facts.append(
        Fact(
            "what the budget counts",
            "terminal display width of each full entry (Bun.stringWidth, ambiguous = narrow, "
            "plus extra cells for some Indic/emoji clusters) + one per newline; no header/frame",
            f"{budget.get('measure', 'chars')}; count_frame = {budget.get('count_frame', True)}",
            "match"
            if width_def
            and budget.get("measure") == "display-width"
            and budget.get("count_frame") is False
            else "differs",
            width_def.start() if width_def else ex.off(lat),
            f"{parts['width_fn']}() in {name}",
            "measure = 'display-width' counts cells from a table read off Bun 1.4.4 (the Bun this "
            "binary is built with, conformance/gen_width_table.py); the extra cells the binary "
            "adds for some Indic and emoji clusters are not modelled (profile assumption).",
        )
    )
    over = (
        'source==="bundled"' in lfn
        and re.search(r"\.sort\(\(([\w$]+),([\w$]+)\)=>[\w$]+\(e\[\2\]\)-[\w$]+\(e\[\1\]\)\)", lfn)
        and re.search(r"if\(([\w$]+)<=([\w$]+)\)[\w$]+\.add\([\w$]+\),\2-=\1", lfn)
    )
    facts.append(
        Fact(
            "overflow rule",
            "if every full entry fits: all full; else name-only overrides and bundled skills stay "
            "full, the rest sorted by priority (usage x decay) descending, stable, and each keeps "
            "its description only if the extra characters still fit (greedy; a later, shorter one "
            "may fit after a longer one did not)"
            if over
            else "not recognised",
            f"model = {budget.get('model')}",
            ("match" if budget.get("model") == "keep-by-priority" else "differs")
            if over
            else "not-found",
            ex.off(lat),
            note="model 'keep-by-priority': names stay, descriptions kept by priority while "
            "their extra characters fit; bundled skills are not modelled (pins do the same).",
        )
    )
    facts += usage_facts(ex, parts, profile)
    warn = re.search(r"t\(`(Skill listing over budget:[^`]*)`", lfn)
    template = None
    if warn:
        # ${e.length} skills, ${H} chars > ${y} budget: the profile's {total}, {chars}, {limit}
        names = re.findall(r"\$\{([\w$.]+)\}", warn.group(1))
        template = warn.group(1).replace("\\u2014", "\u2014")
        for name, field_name in zip(names, ("total", "chars", "limit"), strict=False):
            template = template.replace("${" + name + "}", "{" + field_name + "}")
    facts.append(
        Fact(
            "over-budget message",
            warn.group(1) if warn else None,
            budget.get("warning"),
            "match" if template is not None and template == budget.get("warning") else "differs",
            ex.off(lat + (warn.start() if warn else 0)),
            note="Only a debug-log line in 2.1.330 (level warn); the 'Skill listing will be "
            "truncated' wording of older releases is not in this binary.",
        )
    )
    old = ex.image.find(b"Skill listing will be truncated")
    if old:
        facts[-1].note += f" (found at {old.start()})"

    # 6. header and wrapper
    render = ex.image.find(re.compile(rb"skill_listing:\(([\w$]+)\)=>\{if\(!\1\.content\)"))
    if not render:
        raise LabError("skill_listing renderer not found")
    rmod = ex.image.module_at(render.start())
    rsrc = rmod.text(ex.image.blob)
    ridx = len(ex.image.blob[rmod.offset : render.start()].decode("utf-8", "replace"))
    arrow_start = rsrc.index("=>", ridx) + 2
    arrow_end = _skip_balanced(rsrc, arrow_start, "{", "}")
    arrow = rsrc[ridx + len("skill_listing:") : arrow_end]
    parts["render_src"] = arrow
    parts["render_mod"] = rsrc
    header = re.search(
        r"`(The following skills are \$\{[\w$]+\}available for use with the Skill tool)\$\{[\w$]+\}:\n\n\$\{[\w$]+\}`",
        arrow,
    )
    wrap = ex.image.find(
        re.compile(rb'var ([\w$]+)="<system-reminder>",([\w$]+)="</system-reminder>"')
    )
    # the default model takes mid-conversation system turns: the listing is folded into one
    # as the renderer writes it, without the <system-reminder> wrapper (lab: drivers/claude-code.py)
    found_header = (
        "The following skills are available for use with the Skill tool:\n" if header else None
    )
    facts.append(
        Fact(
            "header",
            found_header,
            t1.get("header"),
            "match" if found_header == t1.get("header") else "differs",
            render.start(),
            (header.group(1) if header else "")
            + "; then a blank line and the entries; wrapped as '<system-reminder>\\n' + text + "
            "'\\n</system-reminder>' only for models without mid-conversation system turns",
            "The profile's header ends in one line break and its separator adds the second: the "
            "blank line before the entries (the tier-1 runs below compare the whole text).",
        )
    )
    facts += listing_forms(ex.image, arrow, rsrc, render.start())
    facts.append(
        Fact(
            "footer",
            "" if wrap else None,
            t1.get("footer"),
            "match" if wrap and t1.get("footer") == "" else "differs",
            wrap.start() if wrap else None,
            "nothing after the entries in the default model's system turn; '</system-reminder>' "
            "closes the user meta message other models get",
        )
    )
    parts["wrap_vars"] = (wrap.group(1).decode(), wrap.group(2).decode()) if wrap else None

    # 7. who is listed
    pred = ex.image.find(
        re.compile(
            rb'function ([\w$]+)\(e\)\{return e\.type==="prompt"&&!e\.disableModelInvocation&&!([\w$]+)\(e\)'
        )
    )
    facts.append(
        Fact(
            "excluded from the listing",
            "disable-model-invocation: true, and overrides user-invocable-only / off"
            if pred
            else None,
            f"exclude_fields = {t1.get('exclude_fields')}",
            "match" if pred else "not-found",
            pred.start() if pred else None,
        )
    )
    return facts, parts


def usage_facts(ex: Extractor, parts: dict, profile: dict) -> list[Fact]:
    """Where the listing's priority comes from: the function the attachment builder passes to the
    listing (cWe), the usage score it falls back on (deo: skillUsage in the global config), the
    record writer (usageCount, lastUsedAt) and the file the global config lives in. Keeps the
    pieces needed to run the priority under node (run_cases, case 'usage')."""
    facts: list[Fact] = []
    usage = profile.get("usage", {})
    # the attachment builder's call, not the definition: ...map((x)=>r5n(x,cWe,...
    call = ex.search(r"=>" + re.escape(parts["list_fn"]) + r"\([\w$]+,([\w$]+),[\w$]+,")
    parts["priority_fn"] = call.group(1)
    pfn, _at = function_source(ex.src, parts["priority_fn"])
    inner = re.match(r"function [\w$]+\(([\w$]+)\)\{let ([\w$]+)=([\w$]+)\(\1\.name\);", pfn)
    if not inner:
        raise LabError(f"priority function {parts['priority_fn']} not recognised")
    parts["usage_fn"] = inner.group(3)
    ufn, uat = function_source(ex.src, parts["usage_fn"])
    parts["usage_src"] = ufn
    m = re.fullmatch(
        r"function [\w$]+\(([\w$]+)\)\{let ([\w$]+)=([\w$]+)\(([\w$]+)\(\)\.(\w+)\?\?\{\},\1\);"
        r"if\(!\2\)return 0;let ([\w$]+)=\(Date\.now\(\)-\2\.(\w+)\)/(\d+),([\w$]+)=Math\.pow\("
        r"([0-9.]+),\6/([0-9.]+)\);return \2\.(\w+)\*Math\.max\(\9,([0-9.]+)\)\}",
        ufn,
    )
    if not m:
        facts.append(Fact("usage priority", ufn, usage, "not-found", ex.off(uat)))
        return facts
    parts["lookup_fn"], parts["config_fn"] = m.group(3), m.group(4)
    lookup = ex.image.find(
        re.compile(
            rb"function "
            + re.escape(m.group(3).encode())
            + rb"\(([\w$]+),([\w$]+)\)\{return Object\.hasOwn\(\1,\2\)\?\1\[\2\]:void 0\}"
        )
    )
    if not lookup:
        raise LabError(f"the usage lookup {m.group(3)} is not an own-property read")
    parts["lookup_src"] = lookup.group(0).decode()
    found = {
        "key": m.group(5),
        "count_field": m.group(12),
        "time_field": m.group(7),
        "time_unit": "ms" if m.group(8) == "86400000" else f"1/{m.group(8)} day",
        "half_life_days": float(m.group(11)),
        "floor": float(m.group(13)),
    }
    mine = {k: usage.get(k) for k in found}
    if isinstance(mine["half_life_days"], int):
        mine["half_life_days"] = float(mine["half_life_days"])
    facts.append(
        Fact(
            "usage priority (skillUsage, decay, floor)",
            found,
            mine,
            "match" if m.group(10) == "0.5" and found == mine else "differs",
            ex.off(uat),
            f"{parts['priority_fn']} -> {parts['usage_fn']}: {ufn}",
            "count x max(0.5^(days/half-life), floor), days a fraction (not floored); a skill "
            f"without a record scores 0. {parts['priority_fn']} adds small scores for never-used "
            "skills only behind feature flags (off by default).",
        )
    )
    writer = ex.search(
        r"(\w+):\{\.\.\.[\w$]+\.\1,\[[\w$]+\]:\{(\w+):\([\w$]+\?\.\2\?\?0\)\+1,(\w+):[\w$]+\}\}"
    )
    facts.append(
        Fact(
            "usage record written on each use",
            f"{writer.group(1)}[name] = {{{writer.group(2)}: previous + 1, {writer.group(3)}: "
            "Date.now()}, at most once a minute per skill",
            f"{usage.get('key')}: {usage.get('count_field')}, {usage.get('time_field')}",
            "match"
            if (writer.group(1), writer.group(2), writer.group(3))
            == (usage.get("key"), usage.get("count_field"), usage.get("time_field"))
            else "differs",
            ex.off(writer.start()),
        )
    )
    path = ex.image.find(
        re.compile(
            rb"function ([\w$]+)\(([\w$]+)\)\{return\{globalConfig:([\w$]+)\(\2\|\|([\w$]+)\(\),"
            rb'"\.claude\.json"\)'
        )
    )
    facts.append(
        Fact(
            "usage file (the global config)",
            "join($CLAUDE_CONFIG_DIR or the home folder, '.claude.json')" if path else None,
            usage.get("file"),
            "match"
            if path and usage.get("file") == "{env:CLAUDE_CONFIG_DIR:~}/.claude.json"
            else ("differs" if path else "not-found"),
            path.start() if path else None,
            path.group(0).decode() if path else "",
        )
    )
    return facts


def listing_forms(image: BunImage, arrow: str, rsrc: str, at: int) -> list[Fact]:
    """The renderer's other forms, and whether the default configuration ever uses them: the
    'shortened' note (appended when the attachment says `shortened`), the later-listing form
    ('also available ... adds to the skills listed earlier', when it says `addsToEarlier`) and
    the code-mode sentence. Each is read off the one builder of skill_listing attachments."""
    facts: list[Fact] = []
    note = re.search(r"shortened===!0\?`\$\{[\w$.]+\}\n\n([^`]*)`", arrow)
    later = re.search(r'addsToEarlier===!0\?\["also ","([^"]*)"\]', arrow)
    build = re.search(r'return\[\{type:"skill_listing",content:[^\]]*\]\}', rsrc)
    builder = build.group(0) if build else ""
    facts.append(
        Fact(
            "'shortened' note",
            (
                "never written: the only skill_listing builder does not set shortened"
                if builder and "shortened" not in builder
                else "written when the builder sets shortened"
                if builder
                else None
            ),
            "no note (the listing as it is)",
            "match"
            if builder and "shortened" not in builder
            else ("differs" if builder else "not-found"),
            at + (arrow.find("shortened") if note else 0),
            (note.group(1) if note else "the renderer has no 'shortened' note")
            + f" | builder: {builder[:300]}",
            "2.1.330's renderer appends 'This list is shortened to save room: ...' for an "
            "attachment marked shortened, but its builder never marks one, so the note does not "
            "reach the model.",
        )
    )
    flag = None
    gate = re.search(r"\.\.\.([\w$]+)&&![\w$]+&&\{addsToEarlier:!0\}", builder)
    if gate and build:
        # the gate is a local set from a flag function earlier in the builder: X=Tvt()
        before = rsrc[max(0, build.start() - 4000) : build.start()]
        local = re.findall(r"(?<![\w$.])" + re.escape(gate.group(1)) + r"=([\w$]+)\(\)", before)
        name = local[-1] if local else gate.group(1)
        fn = re.search(
            r"function "
            + re.escape(name)
            + r'\(\)\{return [\w$]+\("(tengu_[\w]+)",(!0|!1)\)===!0\}',
            rsrc,
        )
        if fn:
            flag = (fn.group(1), fn.group(2) == "!0")
    facts.append(
        Fact(
            "later listing ('also available ... adds to the skills listed earlier')",
            (
                f"only when feature flag {flag[0]} is on (default {'on' if flag[1] else 'off'}) and "
                "the listing is not the session's first"
                if flag
                else "not recognised"
            ),
            "the session's first listing only",
            "match" if flag and not flag[1] else ("differs" if flag else "not-found"),
            at + (arrow.find("addsToEarlier") if later else 0),
            (later.group(1) if later else "") + (f" | gate {gate.group(0)}" if gate else ""),
            "Feature flags come from Anthropic's servers per account; with the defaults (what "
            "the lab and a fresh offline install have) a listing later in a session names only "
            "the skills added since, in the first listing's form.",
        )
    )
    return facts


# The per-model characters-per-token function: a set of model names, the function's value when
# no model is known, then its value for a model in the set and for any other.
_PER_MODEL = re.compile(
    rb"var ([\w$]+)=new Set\(\[([^\]]*)\]\);function ([\w$]+)\(([\w$]+)\)\{if\(!\4\)return (\d);"
    rb".{0,160}?return \1\.has\([\w$]+\)\?(\d):(\d)\}",
    re.S,
)


def per_model_chars_per_token(image: BunImage, default: int, profile_value) -> Fact:
    m = image.find(_PER_MODEL)
    if not m:
        return Fact("characters per token", default, profile_value, "not-found")
    models = json.loads("[" + m.group(2).decode() + "]")
    value = int(m.group(6) if DEFAULT_MODEL in models else m.group(7))
    return Fact(
        "characters per token (bytesPerToken)",
        f"{m.group(6).decode()} for {', '.join(models)}; {m.group(7).decode()} for every other "
        f"model; {m.group(5).decode()} when no model is known; {value} for the default model "
        f"{DEFAULT_MODEL}",
        profile_value,
        "match" if profile_value == value else "differs",
        m.start(),
        f"function {m.group(3).decode()}",
        "A per-model value; the profile models the default model (3: 6,000 chars at 200k, "
        "30,000 at its 1M window).",
    )


def model_chars_per_token(image: BunImage, model: str) -> int | None:
    """What the per-model function gives `model` (None when it is not found)."""
    m = image.find(_PER_MODEL)
    if not m:
        return None
    models = json.loads("[" + m.group(2).decode() + "]")
    return int(m.group(6) if model in models else m.group(7))


# --- running the listing --------------------------------------------------------------------


def listing_script(
    ex: Extractor,
    parts: dict,
    skills: list[dict],
    env_budget: int | None,
    usage: tuple[dict, int] | None = None,
) -> str:
    """The listing function and its helpers as a node script that prints the tier-1 text.
    `usage`: (the parsed ~/.claude.json, the clock in ms): the listing's own priority function
    (cWe -> deo) then reads that config and clock instead of scoring every skill 0."""
    src = ex.src
    defs = []
    for fname in (parts["cap_fn"], parts["cut_fn"], parts["desc_fn"], parts["budget_fn"]):
        defs.append(function_source(src, fname)[0])
    if usage is not None:
        defs += [function_source(src, parts["priority_fn"])[0], parts["usage_src"]]
    defs.append(parts["list_src"])
    lfn = parts["list_src"]
    override = re.search(r"if\(([\w$]+)\([\w$]+\)===\"name-only\"\)", lfn)
    display = re.search(r"`- \$\{([\w$]+)\([\w$]+,[\w$]+\)\}`", lfn)
    # the renderer, with its wrapper (gc -> Js)
    rsrc = parts["render_mod"]
    arrow = parts["render_src"]
    gc_name = re.search(r"return ([\w$]+)\(\[([\w$]+)\(\{content:", arrow)
    if not gc_name:
        raise LabError("renderer shape not recognised")
    gc_src = function_source(rsrc, gc_name.group(1))[0]
    js_name = re.search(r"content:([\w$]+)\([\w$]+\.message\.content\)", gc_src).group(1)
    js_src = function_source(rsrc, js_name)[0]
    nw, bh = parts["wrap_vars"]
    known = {
        parts["cap_fn"],
        parts["cut_fn"],
        parts["desc_fn"],
        parts["budget_fn"],
        parts["list_fn"],
        gc_name.group(1),
        js_name,
    }
    if usage is not None:
        known |= {parts["priority_fn"], parts["usage_fn"]}
    lines = [
        "const __settings = {};",
        f"const {nw} = '<system-reminder>', {bh} = '</system-reminder>';",
    ]
    budget_src = function_source(src, parts["budget_fn"])[0]
    cap_src = function_source(src, parts["cap_fn"])[0]
    settings_fn = re.search(r"return ([\w$]+)\(\)\.skillListingMaxDescChars", cap_src).group(1)
    env_fn = re.search(
        r"=([\w$]+)\(process\.env\.SLASH_COMMAND_TOOL_CHAR_BUDGET\)", budget_src
    ).group(1)
    lines.append(f"const {settings_fn} = () => __settings;")
    lines.append(f"const {env_fn} = (v) => (v === undefined ? NaN : Number(v));")
    if override:
        lines.append(f"const {override.group(1)} = (e) => e.__override ?? 'on';")
    if display:
        lines.append(f"const {display.group(1)} = (e) => e.name;")
    width = parts["width_fn"]
    lines.append(
        # ASCII and U+2026 (an East Asian "ambiguous" character, narrow here) are one cell
        f"const {width} = (s) => {{ if (/[^\\x20-\\x7e\\u2026]/.test(s)) throw new Error("
        "'non-ASCII text: the display-width function needs Claude Code\\'s own Bun'); "
        "return s.length; };"
    )
    defined = {settings_fn, env_fn, width, nw, bh}
    if usage is not None:
        config, now_ms = usage
        # The global config as Claude Code holds it after reading ~/.claude.json, its own
        # own-property lookup (ko), and a pinned clock for the decay.
        lines.append(f"const __config = {json.dumps(config)};")
        lines.append(f"const {parts['config_fn']} = () => __config;")
        lines.append(parts["lookup_src"])
        lines.append(f"Date.now = () => {int(now_ms)};")
        defined |= {parts["config_fn"], parts["lookup_fn"]}
    if override:
        defined.add(override.group(1))
    if display:
        defined.add(display.group(1))
    # every other plain call: a no-op (logging, telemetry, feature flags default off)
    called = set()
    for code in [*defs, gc_src, js_src, arrow]:
        called |= called_names(code)
    builtin = {"Math", "Number", "Set", "Error", "Array", "Object", "String", "JSON", "Map"}
    flag_fns = re.findall(r"([\w$]+)\(\"tengu_[\w]+\",([^)]*)\)", budget_src)
    for fname, _default in flag_fns:
        lines.append(f"const {fname} = (k, d) => d;")
        defined.add(fname)
    for fname in sorted(called - known - defined - builtin):
        lines.append(f"const {fname} = () => undefined;")
        defined.add(fname)
    # module-level numeric constants the extracted functions read (defaults, caps)
    idents = set()
    for code in defs:
        idents |= set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)(?![\w$(])", code))
    for ident in sorted(idents - known - defined - builtin):
        if len(ident) < 3:
            continue  # parameters and locals of the minified code
        try:
            value, _ = ex.const(ident)
        except LabError:
            continue
        lines.append(f"const {ident} = {value!r};")
    lines += defs
    lines += [gc_src, js_src]
    lines.append(f"const __render = {arrow};")
    if env_budget is not None:
        lines.insert(
            0, f"process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET = {json.dumps(str(env_budget))};"
        )
    else:
        lines.insert(0, "delete process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET;")
    lines += [
        f"const __skills = {json.dumps(skills)};",
        "const __cmds = __skills.map((s) => ({type: 'prompt', source: 'userSettings', "
        "loadedFrom: 'skills', name: s.name, description: s.description, "
        "whenToUse: s.when_to_use}));",
        f"const __content = {parts['list_fn']}(__cmds, "
        + (parts["priority_fn"] if usage is not None else "() => 0")
        + ", undefined, undefined);",
        "const __msgs = __render({type: 'skill_listing', content: __content});",
        "process.stdout.write(JSON.stringify(__msgs.map((m) => m.message.content).join('\\n')));",
    ]
    # Me (the message factory) is one of the no-op stubs above: give it its real shape.
    me = re.search(r"return [\w$]+\(\[([\w$]+)\(\{content:", arrow).group(1)
    lines.append("")
    script = "\n".join(lines)
    script = script.replace(
        f"const {me} = () => undefined;",
        f"const {me} = (o) => ({{message: {{content: o.content}}, isMeta: o.isMeta}});",
    )
    return script


CASES = {
    "fits": {
        "skills": [
            {"name": "alpha", "description": "Alpha does things."},
            {"name": "beta", "description": "Beta.", "when_to_use": "When beta is needed."},
            {"name": "long", "description": "L" * 1600},
        ],
        "budget": None,
    },
    "over-budget": {
        "skills": [
            {"name": f"s{i:02d}", "description": f"Skill number {i} " + "d" * (40 + 9 * i)}
            for i in range(12)
        ],
        "budget": 900,
    },
}
# Over budget where keeping greedily differs from dropping from the end: the second (long)
# description does not fit, the later short ones still do.
CASES["greedy"] = {
    "skills": [
        {"name": "g0", "description": "First " + "a" * 40},
        {"name": "g1", "description": "Long " + "b" * 300},
        {"name": "g2", "description": "Short two."},
        {"name": "g3", "description": "Short three."},
    ],
    "budget": 140,
}
# Exactly the entries plus newlines: Claude Code lists every description; a budget that also
# counts the header and frame would drop some.
_EXACT = [{"name": f"e{i}", "description": "Exact budget skill " + "e" * 30} for i in range(4)]
CASES["budget-exactly-entries"] = {
    "skills": _EXACT,
    "budget": sum(len(f"- {s['name']}: {s['description']}") for s in _EXACT) + len(_EXACT) - 1,
}


DAY_MS = 86_400_000


def usage_config(now_ms: int) -> dict:
    """A real-shaped ~/.claude.json (the keys a daily user's file has beside the usage map; no
    account data) whose skillUsage gives the 'usage' case's skills different counts and ages.
    Priorities are far apart (a few seconds of clock between two runs cannot swap them) except
    for exact ties: two records at the 0.1 floor, and the never-used skills (0)."""

    def rec(count: int, days: float) -> dict:
        return {"usageCount": count, "lastUsedAt": int(now_ms - days * DAY_MS)}

    return {
        "numStartups": 212,
        "installMethod": "native",
        "autoUpdates": True,
        "theme": "dark",
        "tipsHistory": {"new-user-warmup": 7, "memory-command": 40},
        "promptQueueUseCount": 3,
        "firstStartTime": "2026-03-02T09:14:11.204Z",
        "projects": {
            "/home/user/src/app": {
                "allowedTools": [],
                "history": [],
                "hasTrustDialogAccepted": True,
                "lastCost": 0.41,
            }
        },
        "skillUsage": {
            "u-deploy": rec(3, 1),  # 3 x 0.5^(1/7) = 2.72
            "u-review": rec(40, 60),  # floor: 40 x 0.1 = 4
            "u-docs": rec(10, 7),  # 5
            "u-test": rec(1, 0.5),  # 0.95
            "u-release": rec(5, 200),  # floor: 0.5
            "u-bench": rec(5, 400),  # floor: 0.5, tie with u-release
            "u-hot": rec(12, 0.01),  # 11.99
            "gone-skill": rec(99, 2),  # used once, no longer installed
        },
        "pluginUsage": {"formatter@official": {"usageCount": 4, "lastUsedAt": int(now_ms)}},
    }


# Listing order (personal skills, alphabetical): descriptions of different lengths so the greedy
# keep-by-priority cut is visible; u-lint and u-zeta are never used.
USAGE_SKILLS = [
    {"name": "u-bench", "description": "Bench " + "b" * 70},
    {"name": "u-deploy", "description": "Deploy " + "d" * 120},
    {"name": "u-docs", "description": "Docs " + "o" * 60},
    {"name": "u-hot", "description": "Hot " + "h" * 200},
    {"name": "u-lint", "description": "Lint " + "l" * 30},
    {"name": "u-release", "description": "Release " + "r" * 70},
    {"name": "u-review", "description": "Review " + "v" * 90},
    {"name": "u-test", "description": "Test " + "t" * 40},
    {"name": "u-zeta", "description": "Zeta " + "z" * 20},
]


WRAP = ("<system-reminder>\n", "\n</system-reminder>")
_BUILTIN_TABLE = re.compile(r"^\[\[tier1\.builtin\]\]\n(?:[^\[\n][^\n]*\n)*\n?", re.M)


def system_turn_form(text: str) -> str:
    """The renderer's message as the default model gets it: folded into a system turn, without
    the <system-reminder> wrapper the user meta message of other models has."""
    if text.startswith(WRAP[0]) and text.endswith(WRAP[1]):
        return text[len(WRAP[0]) : -len(WRAP[1])]
    return text


def profile_without_builtins(folder: Path) -> Path:
    """The shipped profile without its [[tier1.builtin]] tables: the extracted listing runs on
    the synthetic skills alone, without the bundled skills a session adds."""
    path = folder / "claude-code-no-builtins.toml"
    path.write_text(_BUILTIN_TABLE.sub("", PROFILE.read_text(encoding="utf-8")), encoding="utf-8")
    return path


def skillprism_listing(
    skillprism: str | list[str],
    skills: list[dict],
    budget: int | None,
    claude_json: dict | None = None,
) -> str:
    with tempfile.TemporaryDirectory(prefix="cc-facts-") as tmp:
        home = Path(tmp) / "home"
        proj = Path(tmp) / "proj"
        proj.mkdir(parents=True)
        for s in skills:
            d = home / ".claude" / "skills" / s["name"]
            d.mkdir(parents=True)
            fm = [f"name: {s['name']}", f"description: {s['description']}"]
            if s.get("when_to_use"):
                fm.append(f"when_to_use: {s['when_to_use']}")
            (d / "SKILL.md").write_text("---\n" + "\n".join(fm) + "\n---\n\nBody.\n")
        if claude_json is not None:
            (home / ".claude.json").write_text(json.dumps(claude_json, indent=2))
        base = [skillprism] if isinstance(skillprism, str) else list(skillprism)
        profile = str(profile_without_builtins(Path(tmp)))
        cmd = [*base, "prompt", "--profile", profile, "--project", str(proj)]
        if budget is not None:
            cmd += ["--budget-chars", str(budget)]
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        env.pop("SLASH_COMMAND_TOOL_CHAR_BUDGET", None)
        env.pop("CLAUDE_CONFIG_DIR", None)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=proj)
        if proc.returncode != 0:
            raise LabError(f"skillprism prompt failed: {proc.stderr[-800:]}")
        out = proc.stdout
        return out[:-1] if out.endswith("\n") else out


def run_usage_case(
    ex: Extractor, parts: dict, skillprism: str | list[str] | None, budget: int = 420
) -> Fact:
    """USAGE_SKILLS over `budget` with the usage_config() file: the listing's own priority code
    (reading that config, clock pinned at the moment the file was written) against Skill
    Prism's `prompt --profile claude-code` on a home holding the same file (on the wall clock,
    seconds later)."""
    import time

    now_ms = int(time.time() * 1000)
    config = usage_config(now_ms)
    script = listing_script(ex, parts, USAGE_SKILLS, budget, usage=(config, now_ms))
    text = system_turn_form(json.loads(run_js(script)))
    sp = skillprism_listing(skillprism, USAGE_SKILLS, budget, config) if skillprism else None
    return Fact(
        "tier-1 text, case 'usage' (a real-shaped ~/.claude.json)",
        text,
        sp,
        "not-modelled" if sp is None else ("match" if sp == text else "differs"),
        ex.off(ex.src.find("function " + parts["list_fn"] + "(")),
        f"function {parts['list_fn']} with priority {parts.get('priority_fn')} -> "
        f"{parts.get('usage_fn')} run under node, SLASH_COMMAND_TOOL_CHAR_BUDGET={budget}",
        "Stubs as for the other cases, except: the global config is the fixture's parsed JSON, "
        "Date.now is the moment the fixture was written, and the priority is the binary's own.",
    )


def run_cases(ex: Extractor, parts: dict, skillprism: str | None) -> list[Fact]:
    facts = []
    for case, spec in CASES.items():
        script = listing_script(ex, parts, spec["skills"], spec["budget"])
        text = system_turn_form(json.loads(run_js(script)))
        sp = skillprism_listing(skillprism, spec["skills"], spec["budget"]) if skillprism else None
        status = "not-modelled" if sp is None else ("match" if sp == text else "differs")
        facts.append(
            Fact(
                f"tier-1 text, case '{case}'",
                text,
                sp,
                status,
                ex.off(ex.src.find("function " + parts["list_fn"] + "(")),
                f"function {parts['list_fn']} run under node"
                + (f", SLASH_COMMAND_TOOL_CHAR_BUDGET={spec['budget']}" if spec["budget"] else ""),
                "Stubs: settings empty, feature flags at their defaults, no usage data (every "
                "priority 0), no overrides, display width = length (ASCII only), no bundled "
                "skills, names not namespaced.",
            )
        )
    facts.append(run_usage_case(ex, parts, skillprism))
    return facts


def collect(skillprism: str | None = None, run: bool = True) -> list[Fact]:
    image = BunImage(binary_path("claude-code"))
    ex = Extractor(image)
    profile = load_profile()
    facts, parts = gather(ex, profile)
    if run:
        try:
            facts += run_cases(ex, parts, skillprism)
        except (LabError, OSError, ValueError, AttributeError) as exc:
            facts.append(Fact("tier-1 run", None, None, "not-found", note=str(exc)))
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--skillprism", help="path of the skillprism command, to compare tier 1")
    parser.add_argument("--no-run", action="store_true", help="only read the code, run nothing")
    args = parser.parse_args(argv)
    sp = str(Path(args.skillprism).resolve()) if args.skillprism else None
    facts = collect(sp, run=not args.no_run)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "runtime": "claude-code",
                    "release": PACKAGES["claude-code"].release,
                    "facts": [asdict(f) for f in facts],
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    else:
        for f in facts:
            print(f"[{f.status}] {f.name}  (byte {f.offset})")
            print(f"    found:   {f.found!r}"[:2000])
            print(f"    profile: {f.profile!r}"[:2000])
            if f.note:
                print(f"    note:    {f.note}")
    return 1 if any(f.status == "not-found" for f in facts) else 0


if __name__ == "__main__":
    raise SystemExit(main())
