"""A linked folder that points back into its own parents (issue 26): `[discovery] link_loops`.

`stop` (the default) does not follow it and reports SP304. `follow` goes round the loop as pi's
`loadSkillsFromDir`, Bun's glob (OpenCode, Kilo Code) and Amp's walk do, until the system refuses
the path (ELOOP: the same refusal the runtime meets on the same path) or max_depth ends it; the
copies are then clashes like any other. Every tree here is real: real folders, real symlinks, and
the kernel decides how deep a loop goes (the expected paths are asked of the kernel too).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from profile_helpers import profile as base_profile

from skillprism.core.profiles import Profile, ProfileError, load_profile
from skillprism.core.resolve import build_catalog
from skillprism.core.scan import search
from skillprism.paths import shipped_profiles_dir

SKILL = "---\nname: {name}\ndescription: Does {name}. Use when testing.\n---\n\n# {name}\n"
FOLLOWING = {"pi", "opencode", "kilo-code", "amp"}

# Recursive, and as deep as a Bun glob goes: the loops end at ELOOP, not at a bound.
DISCOVERY = """
[discovery]
layout = "recursive"
max_depth = 256
max_dirs = 50000
"""


def profile(extra: str = "") -> Profile:
    return base_profile(DISCOVERY, extra)


def skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name), encoding="utf-8")


def looped_tree(tmp_path: Path, link: str = "loop") -> Path:
    """<project>/skills/b/<link> -> ../b and b/x/SKILL.md: the lab's `link-loop-b`."""
    root = tmp_path / "proj" / "skills"
    skill(root / "b" / "x", "b")
    os.symlink("../b", root / "b" / link)
    return root


def ways_round(root: Path, link: str = "loop") -> list[str]:
    """Every path b/<link>^k/x/SKILL.md the kernel resolves, shallowest first (no fixed 40: the
    folder above the tree may hold links of its own, which count too)."""
    found = []
    for k in range(0, 200):
        path = os.path.join(str(root), "b", *([link] * k), "x", "SKILL.md")
        if not os.path.isfile(path):
            break
        found.append(path)
    return found


def test_stop_is_the_default_and_only_known_values_pass() -> None:
    assert profile().link_loops == "stop"
    assert profile('[discovery]\nlink_loops = "follow"').link_loops == "follow"
    with pytest.raises(ProfileError, match="link_loops"):
        profile('[discovery]\nlink_loops = "forever"')
    shipped = {
        p.stem: load_profile(p.stem).link_loops for p in shipped_profiles_dir().glob("*.toml")
    }
    assert {n for n, v in shipped.items() if v == "follow"} == FOLLOWING
    assert {v for n, v in shipped.items() if n not in FOLLOWING} == {"stop"}


def test_stop_lists_the_plain_path_and_reports_the_loop(tmp_path: Path) -> None:
    root = looped_tree(tmp_path)
    cat = build_catalog(profile(), None, project=str(tmp_path / "proj"), home=str(tmp_path))
    assert [s.path for s in cat.skills] == [str(root / "b" / "x" / "SKILL.md")]
    (d,) = [d for d in cat.diagnostics if d.code == "SP304"]
    assert "not followed" in d.message


def test_follow_goes_round_until_the_system_refuses(tmp_path: Path) -> None:
    root = looped_tree(tmp_path)
    expected = ways_round(root)
    assert len(expected) > 30  # the kernel's limit (40 on Linux) less any links above the tree
    result = search(str(root), max_depth=256, follow_loops=True)
    assert sorted(f.path for f in result.files) == sorted(expected)
    # one finding for the link, not one per way round; no bound was hit
    assert [f.rule for _w, f in result.notes] == ["symlink-problem"]
    assert "follows it round the loop" in result.notes[0][1].message
    # and the same search without follow_loops stops at the link
    plain = search(str(root), max_depth=256)
    assert [f.path for f in plain.files] == expected[:1]


def test_first_wins_in_path_order_keeps_the_deepest_way_round(tmp_path: Path) -> None:
    """pi: sorted readdir, depth first, the first path of a real file wins. `loop` sorts before
    `x`, so the deepest way round is read first; a link sorting after `x` leaves the plain path."""
    follow = profile(
        '[discovery]\nlink_loops = "follow"\ndedup_real_path = true\n'
        '[precedence]\nrule = "first-wins"'
    )
    root = looped_tree(tmp_path)
    cat = build_catalog(follow, None, project=str(tmp_path / "proj"), home=str(tmp_path))
    assert [s.path for s in cat.skills if s.loaded] == [ways_round(root)[-1]]
    other = tmp_path / "other"
    root2 = looped_tree(other, link="zz")
    cat2 = build_catalog(follow, None, project=str(other / "proj"), home=str(other))
    assert [s.path for s in cat2.skills if s.loaded] == [str(root2 / "b" / "x" / "SKILL.md")]


def test_max_depth_ends_the_loop_first(tmp_path: Path) -> None:
    """Amp: depth 5, readdir order (file-system): every path to the file within depth 5 is a
    contender, and which one Amp reads first is reported as varying (SP315)."""
    amp_like = profile(
        '[discovery]\nlink_loops = "follow"\nmax_depth = 5\ndedup_real_path = true\n'
        'in_root_order = "file-system"\n[precedence]\nrule = "first-wins"'
    )
    root = looped_tree(tmp_path)
    cat = build_catalog(amp_like, None, project=str(tmp_path / "proj"), home=str(tmp_path))
    # b/x is 2 folders deep, b/loop/x 3, b/loop/loop/x 4, b/loop/loop/loop/x 5
    found = [s for s in cat.skills if s.status != "not-discovered"]  # deeper: too deep for Amp
    assert sorted(s.path for s in found) == sorted(ways_round(root)[:4])
    assert sum(1 for s in found if s.loaded) == 1
    assert all(any(d.code == "SP315" for d in s.diagnostics) for s in found)
    assert not [d for d in cat.diagnostics if d.code == "SP303"]  # not a truncated search


def test_every_way_round_is_a_copy_when_the_winner_varies(tmp_path: Path) -> None:
    """OpenCode: no real-path dedup, the last parse to finish wins (varies)."""
    bun_like = profile(
        '[discovery]\nlink_loops = "follow"\ndedup_real_path = false\n'
        '[precedence]\nrule = "last-wins"\nwinner = "varies"'
    )
    root = looped_tree(tmp_path)
    cat = build_catalog(bun_like, None, project=str(tmp_path / "proj"), home=str(tmp_path))
    assert sorted(s.path for s in cat.skills) == sorted(ways_round(root))
    assert sum(1 for s in cat.skills if s.loaded) == 1
    assert all(any(d.code == "SP315" for d in s.diagnostics) for s in cat.skills)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs a /proc file system")
def test_following_loops_never_enters_system_folders(tmp_path: Path) -> None:
    root = looped_tree(tmp_path)
    os.symlink("/proc/self", root / "b" / "x" / "proc")
    result = search(str(root), max_depth=256, follow_loops=True)
    assert all("/proc" not in f.path.split("/b/")[-1] for f in result.files)
    assert any("system folder" in f.message for _w, f in result.notes)


def test_a_link_to_a_folder_above_the_root_is_still_not_followed(tmp_path: Path) -> None:
    """Going round a loop never takes the walk out of the searched folder: a link to the folder
    above the root (or to /) would lead anywhere, /proc included."""
    root = looped_tree(tmp_path)
    os.symlink(str(tmp_path), root / "b" / "x" / "up")
    os.symlink("/", root / "b" / "x" / "slash")
    result = search(str(root), max_depth=256, follow_loops=True)
    assert sorted(f.path for f in result.files) == sorted(ways_round(root))
    refused = sorted(w for w, f in result.notes if "not followed" in f.message)
    assert refused == [str(root / "b" / "x" / "slash"), str(root / "b" / "x" / "up")]
