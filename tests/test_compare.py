"""The runtime comparison matrix on the demo set."""

from __future__ import annotations

from skillprism.core.compare import build_matrix
from skillprism.core.profiles import load_profile
from skillprism.core.resolve import build_catalog
from skillprism.paths import demo_skills_dir


def test_matrix_cells_are_states_or_outcomes() -> None:
    names = ("agentskills", "claude-code", "codex")
    catalogs = [build_catalog(load_profile(n), [str(demo_skills_dir())]) for n in names]
    m = build_matrix(catalogs)
    assert m.profiles == names
    by = {(r.name, r.key.split("/skills/")[1].split("/")[0]): r for r in m.rows}
    deploy = next(r for r in m.rows if r.name == "deploy")
    assert deploy.cells[1].value == "excluded"  # Claude Code: disable-model-invocation
    assert "disable-model-invocation" in deploy.cells[1].reason
    deep = next(r for r in m.rows if r.name == "storybook-stories")
    assert [c.value for c in deep.cells] == ["not-discovered", "not-discovered", "full"]
    shadowed = [r for r in m.rows if r.name == "code-review" and r.cells[0].value == "shadowed"]
    assert len(shadowed) == 1 and shadowed[0].cells[2].value == "full"  # Codex keeps both
    # every skill file is one row; per profile the counts add up to the rows
    assert len(m.rows) == len({s.key for c in catalogs for s in c.skills})
    for counts in m.counts():
        assert sum(counts.values()) == len(m.rows)
    assert by
