"""Memory scope grants (reference §2 "Memory scope grants"): ``memory_grant_covers`` rule by
rule, every example the reference gives, and hierarchy granting nothing."""

from __future__ import annotations

import pytest

from alp_nb.agents import BUILTIN_AGENTS, builtin_registry, memory_grant_covers

COVERS = [
    # 1. equal strings are covered
    ("shared", "shared", True),
    ("private:main", "private:main", True),
    ("project:alp:goals", "project:alp:goals", True),
    ("shared:reference:*", "shared:reference:*", True),
    # 2. different first segments are not
    ("shared", "project:alp", False),
    ("project:*", "private:main", False),
    ("private:main", "shared:main", False),
    ("shared:reference:*", "project:reference:src", False),
    # 3. `shared` covers every shared id with at least two segments
    ("shared", "shared:decisions", True),
    ("shared", "shared:reference:src", True),
    ("shared", "shared:a:b:c:d", True),
    # 4. a two-segment private/project grant: second segment `*` or equal, target of two or more segments
    ("project:alp", "project:alp:goals:q3", True),
    ("project:alp", "project:alp", True),
    ("project:alp", "project:alp-code:goals", False),
    ("project:alp", "project", False),
    ("project:*", "project:alp", True),
    ("project:*", "project:alp:goals", True),
    ("project:*", "project", False),
    ("private:worker", "private:worker:notes", True),
    ("private:worker", "private:worker:notes:today", True),
    ("private:worker", "private:main:notes", False),
    ("private:*", "private:anyone:notes", True),
    # 5. segment walk: a last `*` needs a further segment; an inner `*` matches one segment
    ("shared:reference:*", "shared:reference:src", True),
    ("shared:reference:*", "shared:reference:src:deep", True),
    ("shared:reference:*", "shared:reference", False),
    ("shared:reference:*", "shared:decisions:x", False),
    ("project:*:refs:*", "project:alp:refs:src", True),
    ("project:*:refs:*", "project:alp:log:src", False),
    ("project:*:refs:*", "project:alp:refs", False),
    ("project:*:refs:*", "project:alp", False),
    ("shared:reference", "shared:reference:src", True),
    ("shared:reference", "shared:references", False),
    ("shared:reference:src", "shared:reference", False),
    ("shared:*", "shared:x", True),
    ("shared:*", "shared", False),
    ("project:alp:goals", "project:alp:goals:q3", True),
    ("project:alp:goals", "project:alp:log", False),
]


@pytest.mark.parametrize("grant, target, expected", COVERS, ids=[f"{g} ~ {t}" for g, t, _ in COVERS])
def test_grant_covers_target_by_segment(grant, target, expected):
    assert memory_grant_covers(grant, target) is expected


def specialists():
    return [definition.id for definition in BUILTIN_AGENTS if definition.id != "main"]


@pytest.mark.parametrize("specialist", specialists())
def test_hierarchy_grants_nothing_main_reads_no_specialist_private_memory(specialist):
    main_reads = builtin_registry().get("main").capabilities.memory.read
    for scope in (f"private:{specialist}", f"private:{specialist}:notes"):
        assert not any(memory_grant_covers(grant, scope) for grant in main_reads)


@pytest.mark.parametrize("specialist", specialists())
def test_specialist_reads_its_own_private_memory_but_not_mains(specialist):
    reads = builtin_registry().get(specialist).capabilities.memory.read
    assert any(memory_grant_covers(grant, f"private:{specialist}:notes") for grant in reads)
    assert not any(memory_grant_covers(grant, "private:main:notes") for grant in reads)


def test_titling_reads_only_its_own_private_memory():
    reads = builtin_registry().get("titling").capabilities.memory.read
    assert reads == ("private:titling",)
    for scope in ("shared:decisions", "project:alp:goals", "private:main"):
        assert not any(memory_grant_covers(grant, scope) for grant in reads)


@pytest.mark.parametrize(
    "target, expected",
    [
        ("shared:reference:src", True),
        ("project:alp:refs:src", True),
        ("private:librarian:notes", True),
        ("shared:decisions:x", False),
        ("shared:reference", False),
        ("project:alp:log:src", False),
    ],
)
def test_librarian_writes_only_references_and_its_own_private_memory(target, expected):
    writes = builtin_registry().get("librarian").capabilities.memory.write
    assert any(memory_grant_covers(grant, target) for grant in writes) is expected
