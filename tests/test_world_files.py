"""World folders: Smallville loads whole, and each kind of mistake is one line naming file and
field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from simulacra.persona import Persona
from simulacra.world import Arena, GameObject, ResidentPersona, Sector, WorldError, load_world

ROOT = Path(__file__).resolve().parent.parent
SMALLVILLE = ROOT / "worlds" / "smallville"
TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"

CAST = {
    "Isabella Rodriguez", "Klaus Mueller", "Maria Lopez", "John Lin", "Mei Lin", "Eddy Lin",
    "Tom Moreno", "Jane Moreno", "Sam Moore", "Jennifer Moore", "Latoya Williams", "Rajiv Patel",
    "Abigail Chen", "Francisco Lopez", "Hailey Johnson", "Arthur Burton", "Ryan Park",
    "Carmen Ortiz", "Tamara Taylor", "Carlos Gomez", "Yuriko Yamamoto", "Wolfgang Schulz",
    "Giorgio Rossi", "Ayesha Khan", "Adam Smith",
}  # fmt: skip


@pytest.fixture(scope="module")
def smallville():
    return load_world(SMALLVILLE)


def test_smallville_has_the_cast_and_their_places(smallville):
    assert smallville.name == "Smallville"
    assert {p.name for p in smallville.personas} == CAST and len(smallville.personas) == 25
    for persona in smallville.personas:
        assert isinstance(persona, ResidentPersona) and isinstance(persona, Persona)
        assert isinstance(smallville.find(persona.home), Arena)
        if persona.workplace:
            assert isinstance(smallville.find(persona.workplace), Sector | Arena)
        assert all(smallville.find(place) is not None for place in persona.usual_places)
        memories = persona.seed_memories()
        assert 5 <= len(memories) <= 10
        assert all(persona.first_name in m and ";" not in m and "\n" not in m for m in memories)
        assert persona.lifestyle.wake.hour in (6, 7, 8)
        assert smallville.is_walkable(smallville.spawn_of(persona.name))
        assert type(persona.persona()) is Persona
    # Nobody shares a spawn tile, not even a couple sharing a bed.
    spawns = [smallville.spawn_of(p.name) for p in smallville.personas]
    assert len(set(spawns)) == len(spawns)


def test_smallville_has_the_papers_places_and_norms(smallville):
    sectors = {s.name for s in smallville.sectors}
    for name in [
        "Hobbs Cafe",
        "The Rose and Crown Pub",
        "Oak Hill College",
        "Dorm for Oak Hill College",
        "Johnson Park",
        "Harvey Oak Supply Store",
        "The Willows Market and Pharmacy",
        "Artists' co-living space",
        "Lin family's house",
    ]:
        assert name in sectors
    assert smallville.find("Oak Hill College: classroom")
    assert smallville.find("Oak Hill College: library")
    assert isinstance(smallville.find("Lin family's house: kitchen: stove"), GameObject)
    capped = [a for a in smallville.arenas if a.capacity == 1]
    assert capped and all("one-person" in a.name for a in capped)
    assert smallville.find("Dorm for Oak Hill College: men's one-person bathroom").capacity == 1
    assert 80 <= smallville.width <= 110 and 50 <= smallville.height <= 75
    start = smallville.scenario.start
    assert (start.month, start.day) == (2, 13) and 5 <= start.hour <= 8
    assert smallville.scenario.step_seconds == 10


def test_every_address_names_its_own_place(smallville):
    addresses = [p.address for p in [*smallville.sectors, *smallville.arenas, *smallville.objects]]
    assert len(addresses) == len(set(addresses))
    for obj in smallville.objects:
        assert smallville.find(obj.address) is obj
        assert smallville.resolve_object(obj.address) == obj.address
        for tile in obj.tiles:
            where = smallville.place_at(tile)
            assert (where.sector, where.arena, where.object) == (obj.sector, obj.arena, obj.name)
    for arena in smallville.arenas:
        assert all(smallville.place_at(t).arena == arena.name for t in arena.tiles)


def test_smallville_3_reuses_the_town_with_three_residents():
    world = load_world(ROOT / "worlds" / "smallville-3")
    names = [p.name for p in world.personas]
    assert names == ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
    assert len(world.arenas) == len(load_world(SMALLVILLE).arenas)


def test_export_map_is_json_a_browser_can_draw(smallville):
    exported = smallville.export_map()
    data = json.loads(json.dumps(exported))
    w, h = data["width"], data["height"]
    assert all(len(data["tiles"][k]) == w * h for k in ("kind", "sector", "arena", "object"))
    assert len(data["glyphs"]) == h and all(len(row) == w for row in data["glyphs"])
    stove = next(o for o in data["objects"] if o["address"] == "Lin family's house: kitchen: stove")
    x, y = stove["tiles"][0]
    assert data["tiles"]["object"][y * w + x] == stove["id"]
    assert data["kinds"][data["tiles"]["kind"][y * w + x]] == "object"
    assert data["arenas"][stove["arena"]]["address"] == "Lin family's house: kitchen"
    assert stove["state"] == "idle" and len(data["personas"]) == 25


# -- malformed worlds --------------------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path):
    """A copy of the two-building test world to break."""
    return Path(shutil.copytree(TINY, tmp_path / "tiny"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def only_problem(folder: Path) -> str:
    with pytest.raises(WorldError) as caught:
        load_world(folder)
    assert len(caught.value.problems) == 1, caught.value.lines()
    line = str(caught.value)
    assert "\n" not in line
    return line


def test_the_tiny_world_itself_is_fine():
    world = load_world(TINY)
    assert [p.name for p in world.personas] == ["Ada Byron", "Bob Baker"]


def test_unknown_object_on_a_sector_map(tiny):
    edit(tiny / "sectors" / "cafe.toml", "#cTTc+W#", "#cTZc+W#")
    line = only_problem(tiny)
    assert "sectors/cafe.toml: line 5, column 4: unknown object or arena 'Z'" in line
    assert "(list 'Z' under [arenas.<letter>.objects]" in line


def test_unknown_object_named_by_a_persona(tiny):
    edit(tiny / "personas" / "bob.toml", "cafe: coffee machine", "cafe: piano")
    line = only_problem(tiny)
    assert 'personas/bob.toml: spawn: no place "Corner Cafe: cafe: piano"' in line


def test_spawn_point_on_a_wall(tiny):
    edit(tiny / "personas" / "ada.toml", 'usual_places = ["Corner Cafe"]', "spawn = [1, 1]")
    line = only_problem(tiny)
    assert "personas/ada.toml: spawn: tile (1, 1) is a wall or blocked" in line
    assert line.endswith("(pick a walkable tile)")


def test_missing_persona_field(tiny):
    edit(tiny / "personas" / "ada.toml", "age = 36\n", "")
    line = only_problem(tiny)
    assert "personas/ada.toml: age: missing (add a line like: age = 34)" in line


def test_unreachable_arena(tiny):
    edit(tiny / "sectors" / "cafe.toml", "#cTTc+W#", "#cTTc#W#")
    line = only_problem(tiny)
    assert 'sectors/cafe.toml: arenas.r: arena "one-person restroom" cannot be reached' in line
    assert "open a door" in line


def test_persona_living_in_a_place_that_does_not_exist(tiny):
    edit(tiny / "personas" / "ada.toml", "Ada's house: bedroom", "Ada's house: attic")
    line = only_problem(tiny)
    assert 'personas/ada.toml: home: no place "Ada\'s house: attic" in this world' in line
    assert "did you mean" in line


HOUSE, CAFE, ADA, BOB = (
    "sectors/house.toml",
    "sectors/cafe.toml",
    "personas/ada.toml",
    "personas/bob.toml",
)
MISTAKES = [
    ("town.toml", "C = ", "Q = ", "town.toml: line 3, column 12: unknown letter 'C'"),
    ("town.toml", "CC.\n.HHHH", "CC.\n.HHH.", "town.toml: line 4, column 5: sector 'H' is not one"),
    (HOUSE, "#bbB#kk#", "#bbB#kkk#", "line 4: this map row is 9 characters wide"),
    (HOUSE, 'S = "stove"', 'S = "bed"\nobjects.Q = "pan"', 'objects.Q: object "pan" is not drawn'),
    (HOUSE, 'name = "kitchen"', 'name = "bedroom"', 'arenas.k.name: arena name "bedroom" is also'),
    (HOUSE, 'name = "kitchen"', 'name = "kitchen: left"', "arenas.k.name: a name cannot contain"),
    (CAFE, "capacity = 1", "capacity = 0", "arenas.r.capacity: Input should be greater than"),
    (
        CAFE,
        'Cafe"',
        'Cafe"\nhours = "8am-8pm"',
        'sectors/cafe.toml: hours: "8am-8pm" is not an opening',
    ),
    (
        CAFE,
        'Cafe"',
        'Cafe"\nhours = "08:00"',
        'sectors/cafe.toml: hours: "08:00" is not an opening',
    ),
    (
        CAFE,
        "capacity = 1",
        'capacity = 1\nusers = ["Ada Bryon"]',
        'arenas.r.users: "Ada Bryon" is no resident of this world (did you mean "Ada Byron")',
    ),
    (
        HOUSE,
        'name = "bedroom"',
        'name = "bedroom"\nusers = ["Bob Baker"]',
        'personas/ada.toml: home: "Ada\'s house: bedroom" is kept for Bob Baker (its users)',
    ),
    (ADA, 'wake = "06:30"', 'wake = "26:30"', "personas/ada.toml: lifestyle.wake:"),
    (ADA, "age = 36", "age = 36\nmood = 1", "personas/ada.toml: mood: unknown field"),
    (BOB, 'Bob Baker"', 'Ada Byron"', 'personas/bob.toml: name: "Ada Byron" is also the name in'),
    (
        "scenario.toml",
        "step_seconds = 10",
        'personas = ["Ada Bryon"]',
        'scenario.toml: personas[0]: no resident named "Ada Bryon" (did you mean "Ada Byron")',
    ),
    ("scenario.toml", "2023-02-13T07:00:00", "soon", "scenario.toml: line 1, column 9: not valid"),
    ("world.toml", '"Tiny Town"', '"Tiny Town"\ntown = "no.toml"', "world.toml: town: no file"),
]


@pytest.mark.parametrize(("file", "old", "new", "needle"), MISTAKES)
def test_more_mistakes_each_get_one_line(tiny, file, old, new, needle):
    edit(tiny / file, old, new)
    line = only_problem(tiny)
    assert needle in line, line


def test_all_problems_are_collected(tiny):
    edit(tiny / "personas" / "ada.toml", "age = 36\n", "")
    edit(tiny / "personas" / "bob.toml", "Ada's house: kitchen", "Nowhere: kitchen")
    with pytest.raises(WorldError) as caught:
        load_world(tiny)
    lines = caught.value.lines()
    assert len(lines) == 2 and "ada.toml: age" in lines[0] and "bob.toml: home" in lines[1]
    assert str(caught.value).endswith("[and 1 more problem]")


def test_not_a_world_folder(tmp_path):
    with pytest.raises(WorldError, match="no such world folder"):
        load_world(tmp_path / "missing")


def test_source_files_are_enough_to_load_a_copy(tmp_path):
    world = load_world(ROOT / "worlds" / "smallville-3")
    files = [f.resolve() for f in world.source_files]
    assert len(files) == 1 + 1 + 19 + 25 + 1 and all(f.is_file() for f in files)
    for f in files:
        target = tmp_path / f.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
    copy = load_world(tmp_path / "worlds" / "smallville-3")
    assert [p.name for p in copy.personas] == [p.name for p in world.personas]
