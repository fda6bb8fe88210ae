"""Every documented code is emitted somewhere: one small scenario per code, through the same
entry points the front ends use (the scan and check, the tier-1 budget, activation, tier 3).
The security codes (SP7xx) are emitted by the security pass; their scenarios are the planted
corpus (tests/test_security.py), which this test checks covers every one of them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from skillprism.core.activate import activate
from skillprism.core.codes import CODES
from skillprism.core.disclose import BudgetSettings, Tier1Model
from skillprism.core.profiles import load_profile, parse_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.tier3 import resolve_reference, resolve_skill_url

OK = "---\nname: {name}\ndescription: Does it. Use when testing.\n---\n# Body\n\nDo it.\n"


def fm(extra: str = "", name: str = "s", body: str = "# Body\n\nDo it.\n") -> str:
    return f"---\nname: {name}\ndescription: Does it. Use when testing.\n{extra}---\n{body}"


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def check(
    profile: str, files: dict[str, str | bytes], paths: tuple[str, ...] = ("root",)
) -> Callable[[Path], set[str]]:
    def run(tmp: Path) -> set[str]:
        write(tmp, files)
        catalog = build_catalog(
            load_profile(profile), [str(tmp / p) for p in paths], project=str(tmp)
        )
        return {d.code for d in catalog.all_diagnostics()}

    return run


def budget(
    profile: str, description: str, chars: int, count: int = 3
) -> Callable[[Path], set[str]]:
    def run(tmp: Path) -> set[str]:
        write(
            tmp,
            {
                f"root/s{i}/SKILL.md": fm(name=f"s{i}").replace(
                    "Does it. Use when testing.", description
                )
                for i in range(count)
            },
        )
        catalog = build_catalog(load_profile(profile), [str(tmp / "root")])
        result = Tier1Model(catalog).compute(BudgetSettings(context_window=0, budget_chars=chars))
        return {d.code for d in result.diagnostics}

    return run


def activation(profile: str, text: str, invoker: str = "model") -> Callable[[Path], set[str]]:
    def run(tmp: Path) -> set[str]:
        write(tmp, {"root/s/SKILL.md": text})
        catalog = build_catalog(load_profile(profile), [str(tmp / "root")])
        return {d.code for d in activate(catalog, catalog.skills[0], invoker=invoker).diagnostics}

    return run


def resource(
    files: dict[str, str | bytes], reference: str, **kwargs: object
) -> Callable[[Path], set[str]]:
    def run(tmp: Path) -> set[str]:
        write(tmp, {"s/SKILL.md": fm(), **{f"s/{k}": v for k, v in files.items()}})
        r = resolve_reference(str(tmp / "s"), reference, **kwargs)  # type: ignore[arg-type]
        return {d.code for d in ((r.refusal,) if r.refusal else ()) + tuple(r.notes)}

    return run


def special(
    make: Callable[[Path], None],
    profile: str = "agentskills",
    paths: tuple[str, ...] = ("root",),
    **kw: object,
) -> Callable[[Path], set[str]]:
    def run(tmp: Path) -> set[str]:
        make(tmp)
        catalog = build_catalog(load_profile(profile), [str(tmp / p) for p in paths], **kw)  # type: ignore[arg-type]
        return {d.code for d in catalog.all_diagnostics()}

    return run


def _broken_link(tmp: Path) -> None:
    (tmp / "root" / "s").mkdir(parents=True)
    os.symlink(tmp / "nowhere", tmp / "root" / "s" / "SKILL.md")


def _fifo(tmp: Path) -> None:
    (tmp / "root" / "s").mkdir(parents=True)
    os.mkfifo(tmp / "root" / "s" / "SKILL.md")


def _alias(tmp: Path) -> None:
    write(tmp, {"root/a/SKILL.md": OK.format(name="a")})
    os.symlink(tmp / "root" / "a", tmp / "root" / "b")


def _loop(tmp: Path) -> None:
    write(tmp, {"root/s/SKILL.md": fm()})
    os.symlink(tmp / "root", tmp / "root" / "s" / "loop")


def _linked_from_outside(tmp: Path) -> None:
    write(tmp, {"outside/far/SKILL.md": fm(name="far"), "proj/.git/HEAD": "ref: x\n"})
    (tmp / "proj" / ".claude" / "skills").mkdir(parents=True)
    os.symlink(tmp / "outside" / "far", tmp / "proj" / ".claude" / "skills" / "far")


def _no_roots(tmp: Path) -> None:
    (tmp / "proj").mkdir()


def _unlistable(tmp: Path) -> None:
    write(tmp, {"root/s/SKILL.md": fm(), "root/locked/x": ""})


def _many_files(tmp: Path) -> None:
    write(tmp, {"s/SKILL.md": fm()})
    for i in range(2001):
        (tmp / "s" / f"f{i:04d}.txt").write_bytes(b"")


def _listing(tmp: Path) -> set[str]:
    _many_files(tmp)
    r = resolve_reference(str(tmp / "s"), ".")
    return {d.code for d in r.notes}


def _fifo_resource(tmp: Path) -> set[str]:
    write(tmp, {"s/SKILL.md": fm()})
    os.mkfifo(tmp / "s" / "pipe")
    r = resolve_reference(str(tmp / "s"), "pipe")
    return {r.refusal.code} if r.refusal else set()


def _added_after_discovery(tmp: Path) -> set[str]:
    from skillprism.core.resources import list_resources

    write(tmp, {"s/SKILL.md": fm()})
    listing = list_resources(str(tmp / "s"))  # what the runtime discovered
    write(tmp, {"s/new.md": "x"})
    r = resolve_reference(str(tmp / "s"), "new.md", only_listed=True, listing=listing)
    return {r.refusal.code} if r.refusal else set()


def _skill_url(tmp: Path) -> set[str]:
    r = resolve_skill_url("skill://nobody/x.md", {})
    return {r.refusal.code} if r.refusal else set()


def _internal(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    from skillprism.core import evaluator

    write(tmp, {"root/s/SKILL.md": fm()})
    monkeypatch.setattr(evaluator, "evaluate", lambda *a: 1 / 0)
    return {
        d.code
        for d in build_catalog(load_profile("agentskills"), [str(tmp / "root")]).all_diagnostics()
    }


def _unlisted(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    from skillprism.core import scan

    _unlistable(tmp)
    real = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(scan.os, "scandir", scandir)
    return {
        d.code
        for d in build_catalog(load_profile("agentskills"), [str(tmp / "root")]).all_diagnostics()
    }


def _filtered(tmp: Path) -> set[str]:
    write(tmp, {"root/s/SKILL.md": fm()})
    profile = parse_profile(
        {
            "schema": 1,
            "name": "f",
            "discovery": {"ignore": ["s"]},
            "fields": {"name": "string", "description": "string"},
        },
        "f.toml",
    )
    return {d.code for d in build_catalog(profile, [str(tmp / "root")]).all_diagnostics()}


def _not_installable(tmp: Path) -> set[str]:
    from skillprism.core.installed import Install, find_units

    write(tmp, {"repo/skills/s/SKILL.md": fm(), "proj/.keep": ""})
    catalog = build_catalog(
        load_profile("hermes-agent"),  # it has no project skills folder
        None,
        project=str(tmp / "proj"),
        home=str(tmp / "home"),
        env={},
        install=Install(tuple(find_units(str(tmp / "repo"))), "project"),
    )
    return {d.code for d in catalog.all_diagnostics()}


def _roots_missing(tmp: Path) -> set[str]:
    (tmp / "proj").mkdir()
    catalog = build_catalog(
        load_profile("claude-code"), None, project=str(tmp / "proj"), home=str(tmp / "home"), env={}
    )
    return {d.code for d in catalog.all_diagnostics()}


def _off_root(tmp: Path) -> set[str]:
    (tmp / "proj").mkdir()
    write(tmp, {"home/.claude/skills/s/SKILL.md": fm()})
    catalog = build_catalog(
        load_profile("oh-my-pi"), None, project=str(tmp / "proj"), home=str(tmp / "home"), env={}
    )
    return {d.code for d in catalog.all_diagnostics()}


def _deep(tmp: Path) -> set[str]:
    write(tmp, {"root/a/b/c/s/SKILL.md": fm()})
    catalog = build_catalog(load_profile("agentskills"), [str(tmp / "root")], max_depth=2)
    return {d.code for d in catalog.all_diagnostics()}


DEEP_YAML = "x: " + "[" * 300 + "]" * 300 + "\n"
SCENARIOS: dict[str, Callable[..., set[str]]] = {
    "SP100": special(_broken_link),
    "SP101": special(_fifo),
    "SP102": check("agentskills", {"root/s/SKILL.md": fm() + "x" * (2 * 1024 * 1024)}),
    "SP103": check("agentskills", {"root/s/SKILL.md": ""}),
    "SP104": check("agentskills", {"root/s/SKILL.md": "---\nname: s\x00\n---\n"}),
    "SP105": check("agentskills", {"root/s/SKILL.md": b"---\nname: s\xff\n---\n"}),
    "SP106": check("agentskills", {"root/s/SKILL.md": "\ufeff" + fm()}),
    "SP107": check("agentskills", {"root/s/SKILL.md": fm().replace("\n", "\r\n")}),
    "SP108": check("agentskills", {"root/s/SKILL.md": fm().replace("\n", "\r")}),
    "SP109": check("agentskills", {"root/s/SKILL.md": "# Only a body\n"}),
    "SP110": check("agentskills", {"root/s/SKILL.md": "---\nname: s\ndescription: x\n"}),
    "SP111": check("agentskills", {"root/s/SKILL.md": "\n\n" + fm()}),
    "SP112": check("agentskills", {"root/s/SKILL.md": fm().replace("---\n", "--- \n", 1)}),
    "SP113": check("agentskills", {"root/s/SKILL.md": fm("bad: [\n")}),
    "SP114": check("agentskills", {"root/s/SKILL.md": "---\n- a\n- b\n---\nbody\n"}),
    "SP115": check("agentskills", {"root/s/SKILL.md": fm("name: s\n")}),
    "SP116": check("agentskills", {"root/s/SKILL.md": fm(DEEP_YAML)}),
    "SP117": check("claude-code", {"root/s/SKILL.md": fm("x: !!python/object:os.system y\n")}),
    "SP118": check(
        "agentskills",
        {"root/s/SKILL.md": "version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n"},
    ),
    "SP119": check("agentskills", {"root/s/SKILL.md": fm("x: " + "y" * (300 * 1024) + "\n")}),
    "SP120": check("claude-code", {"root/s/SKILL.md": fm("1: x\n")}),
    "SP121": check(
        "gemini-cli",
        {"root/s/SKILL.md": "---\nname: s\ndescription: Use when: testing\n---\nbody\n"},
    ),
    "SP122": _internal,
    "SP190": check(
        "agentskills",
        {"root/s/SKILL.md": fm("description2: 'a: ---'\n").replace("description2", "license")},
    ),
    "SP191": check("agentskills", {"root/s/SKILL.md": b"---\nname: s\ndescription: \xff\n---\n"}),
    "SP192": check("agentskills", {"root/s/SKILL.md": fm("metadata: {a: b}\n")}),
    "SP201": check(
        "agentskills", {"root/s/SKILL.md": "---\ndescription: D. Use when testing.\n---\nbody\n"}
    ),
    "SP202": check("agentskills", {"root/s/SKILL.md": fm(name="[1, 2]")}),
    "SP223": check("agentskills", {"root/s/SKILL.md": fm(name="''")}),
    "SP224": check("oh-my-pi", {"root/s/SKILL.md": fm("enabled: false\n")}),
    "SP225": check("agentskills", {"root/s/SKILL.md": "---\nname: s\ndescription: ''\n---\nb\n"}),
    "SP226": check(
        "qwen-code", {"root/s/SKILL.md": "---\nname: {k: v}\ndescription: D.\n---\nb\n"}
    ),
    "SP227": check("qwen-code", {"root/s/SKILL.md": "---\nname: s\ndescription: {k: v}\n---\nb\n"}),
    "SP123": check("pi", {"root/s/SKILL.md": "---\nname: s\ndescription: D.\n-----\nbody\n"}),
    "SP124": check(
        "oh-my-pi", {"root/s/SKILL.md": "---\nname: s\ndescription: Use when: x\n---\nb\n"}
    ),
    "SP314": _off_root,
    "SP316": _not_installable,
    "SP315": check(
        "mistral-vibe", {"root/a/SKILL.md": fm(name="s"), "root/b/SKILL.md": fm(name="s")}
    ),
    "SP203": check("agentskills", {"root/" + "a" * 70 + "/SKILL.md": fm(name="a" * 70)}),
    "SP204": check("agentskills", {"root/S/SKILL.md": fm(name="S")}),
    "SP205": check("agentskills", {"root/-s/SKILL.md": fm(name="-s")}),
    "SP206": check("agentskills", {"root/a--b/SKILL.md": fm(name="a--b")}),
    "SP207": check("agentskills", {"root/a_b/SKILL.md": fm(name="a_b")}),
    "SP208": check("agentskills", {"root/s/SKILL.md": fm(name="other")}),
    "SP209": check("gemini-cli", {"root/s/SKILL.md": fm(name="'a:b'")}),
    "SP210": check("agentskills", {"root/s/SKILL.md": "---\nname: s\n---\nbody\n"}),
    "SP211": check(
        "claude-code", {"root/s/SKILL.md": "---\nname: s\ndescription: 12\n---\nbody\n"}
    ),
    "SP212": check(
        "agentskills",
        {"root/s/SKILL.md": "---\nname: s\ndescription: " + "d" * 1100 + "\n---\nbody\n"},
    ),
    "SP213": check("agentskills", {"root/s/SKILL.md": fm("compatibility: " + "c" * 600 + "\n")}),
    "SP214": check("agentskills", {"root/s/SKILL.md": fm("metadata:\n  a: [1]\n")}),
    "SP215": check("agentskills", {"root/s/SKILL.md": fm("allowed-tools:\n  - Read\n")}),
    "SP216": check("agentskills", {"root/s/SKILL.md": fm("foo: bar\n")}),
    "SP217": check("claude-code", {"root/s/SKILL.md": fm("license: 12\n")}),
    "SP218": check("claude-code", {"root/s/SKILL.md": fm("context: sideways\n")}),
    "SP219": check("autopoiesis", {"root/s/SKILL.md": fm()}),
    "SP220": check(
        "codex", {"root/s/SKILL.md": "---\nname: s\ndescription: |\n  two\n  lines\n---\nbody\n"}
    ),
    "SP221": check("claude-code", {"root/s/SKILL.md": "---\nname: s\n---\nThe first paragraph.\n"}),
    "SP222": check(
        "codex", {"root/s/SKILL.md": "---\ndescription: D. Use when testing.\n---\nbody\n"}
    ),
    "SP290": check("agentskills", {"root/café/SKILL.md": fm(name="café")}),
    "SP300": check("agentskills", {"root/a/b/s/SKILL.md": fm()}),
    "SP301": check("agentskills", {"a/s/SKILL.md": fm(), "b/s/SKILL.md": fm()}, ("a", "b")),
    "SP302": special(_alias),
    "SP303": _deep,
    "SP304": special(_loop),
    "SP305": check("agentskills", {"root/s/SKILL.md": fm(), "root/packed.zip": "PK"}),
    "SP306": check(
        "agentskills", {"root/s/SKILL.md": fm(), "root/s/inner/SKILL.md": fm(name="inner")}
    ),
    "SP307": check("codex", {"a/s/SKILL.md": fm(), "b/s/SKILL.md": fm()}, ("a", "b")),
    "SP308": _roots_missing,
    "SP309": _filtered,
    "SP310": check("agentskills", {}, ("nope",)),
    "SP311": check("agentskills", {"root/readme.txt": "x"}),
    "SP312": _listing,
    "SP313": _unlisted,
    "SP401": budget("claude-code", "word " * 100, 60),
    "SP402": budget("claude-code", "word " * 400, 100_000, 1),
    "SP403": budget("codex", "word " * 100, 60, 12),
    "SP404": budget("claude-code", "D.\ndisable-model-invocation: true", 100_000, 1),
    "SP405": budget("claude-code", "word " * 100, 10, 12),
    "SP406": budget("claude-code", "word " * 200, 100_000, 1),
    "SP407": activation("claude-code", fm(body="word " * 30_000)),
    "SP408": activation("claude-code", fm("disable-model-invocation: true\n")),
    "SP501": check("agentskills", {"root/s/SKILL.md": fm(body="[a](references/none.md)\n")}),
    "SP502": check("agentskills", {"root/s/SKILL.md": fm(body="[a](/etc/hosts)\n")}),
    "SP503": check("agentskills", {"root/s/SKILL.md": fm(body="[a](../x.md)\n")}),
    "SP504": check(
        "agentskills", {"root/s/SKILL.md": fm(body="[a](a/b/c.md)\n"), "root/s/a/b/c.md": "x"}
    ),
    "SP505": check("agentskills", {"root/s/SKILL.md": fm(body="[a](<x%00y.md>)\n")}),
    "SP506": _added_after_discovery,
    "SP507": resource({"img.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 20}, "img.png"),
    "SP508": resource({"big.md": "x" * 300_000}, "big.md"),
    "SP509": _fifo_resource,
    "SP510": _skill_url,
    "SP317": check("agentskills", {"root/empty/README.md": "no skill here"}),
    "SP318": lambda tmp: special(
        _linked_from_outside,
        "kilo-code",
        (),
        project=str(tmp / "proj"),
        home=str(tmp / "home"),
        env={},
    )(tmp),
    # OpenClaw loads at most 200 skills from one root: the 201st is not read
    "SP319": check(
        "openclaw", {f"root/s{i:03d}/SKILL.md": fm(name=f"s{i:03d}") for i in range(201)}
    ),
    "SP511": check("agentskills", {"root/s/SKILL.md": fm(body="Run `python scripts/fill.py`.\n")}),
    "SP601": check("agentskills", {"root/s/SKILL.md": fm(body="line\n" * 600)}),
    "SP602": check("agentskills", {"root/s/SKILL.md": fm(body="word " * 8000)}),
    "SP603": check("agentskills", {"root/s/SKILL.md": fm(body="")}),
}

NEEDS_MONKEYPATCH = {"SP122", "SP313"}


def test_every_code_has_a_scenario_or_is_a_security_code() -> None:
    missing = [c for c, info in CODES.items() if c not in SCENARIOS and info.category != "security"]
    assert missing == []


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_the_code_is_emitted(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = SCENARIOS[code]
    found = scenario(tmp_path, monkeypatch) if code in NEEDS_MONKEYPATCH else scenario(tmp_path)
    assert code in found, sorted(found)


def test_every_security_code_is_planted_in_the_corpus() -> None:
    from security_corpus import cases, expected

    planted = {
        CODES_BY_RULE[rule] for case in cases("planted") for rule, _file, _line in expected(case)
    }
    security = {c for c, info in CODES.items() if info.category == "security"}
    # SP700 (too large to analyse fully) is shown with 50 MB inputs in tests/test_security.py.
    assert security - planted <= {"SP700"}


CODES_BY_RULE = {info.rule: code for code, info in CODES.items()}
