"""docs/protocol.md says what the sockets' code speaks, so that it cannot drift from it unseen:
every message a socket accepts (each in its table, with its fields and the length of each text
field), every error code a socket can answer with (each in that socket's error table, and no
code there that the socket cannot send), every frame and numbered event the server sends with
their fields, and every close code. All of it is read from the source: the sockets' message
tables, and a scan of the modules that answer a socket's frames (the literal codes of their
refusals, the `type`s and keys of the frames they build)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arenas import consumers as arena_consumers
from games import sockets
from races import consumers as race_consumers

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"

HEADINGS = {
    "game": "`/ws/game/`",
    "daily": "`/ws/daily/`",
    "race": "`/ws/race/<code>/`",
    "arena": "`/ws/arena/<id>/`",
    "closes": "Closes",
}
"""Each socket's section of the doc (a `## ` heading holding this text), and the one of the
closes every socket shares."""

MESSAGES = {
    "game": sockets.MESSAGES,
    "daily": sockets.MESSAGES,  # the practice consumer limited to daily games
    "race": race_consumers.MESSAGES,
    "arena": arena_consumers.MESSAGES,
}

REFUSERS = ("RaceRuleError", "BadFrame", "error_frame")
"""Calls whose first argument, a literal, is an error code a client is sent."""

FORM_ONLY = {"unknown_variant", "bad_seed", "bad_visibility", "rated_chosen_deal"}
FORM_ONLY |= {"bad_time_limit", "bad_max_players"}
"""Refusals of the race set-up's settings (races.actions.do_create_race): a socket never sends
them, as the only socket action that sets a race up, `rematch`, copies a race's settings, which
passed these checks already. The set-up form's answer is the form with the error."""


@dataclass
class Source:
    """What one socket's frames reach: files, or some functions of a file (`path::name,name`)."""

    parts: tuple[str, ...]
    shapes: tuple[str, ...] = ()
    """The functions that build the socket's frames: every key of theirs is a field to name."""
    events: tuple[str, ...] = field(default=())
    """Where the race's numbered events are made (`emit(race, "kind")`, `("kind", data)`)."""


GAME_FILES = (
    "games/sockets.py",
    "games/errors.py",
    "games/consumers.py",
    "games/hints.py",
    "games/play.py",
    "games/storage.py",
    "games/actions.py::access_game",
)
GAME_SHAPES = (
    "games/sockets.py::game_frame,deal_frame,error_frame,pong_frame,refuse",
    "games/hints.py::frame",
)
ARENA_FRAMES = (
    "arenas/consumers.py",
    "arenas/standings.py::board_frame,lobby,row_dict,own_dict",
    "arenas/events.py::edited_frame",
)

SOURCES = {
    "game": Source(GAME_FILES, GAME_SHAPES),
    "daily": Source(GAME_FILES, GAME_SHAPES),
    "race": Source(
        (
            "games/sockets.py",
            "games/play.py",
            "games/storage.py",
            "races/consumers.py",
            "races/actions.py",
            "races/lifecycle.py",
            "races/play.py",
            "races/deals.py",
            "races/snapshots.py",
            "races/events.py",
            "arenas/results.py",  # the `arena` event
            "arenas/rooms.py",  # the wait for the next race: `standings`, `placed`, `edited`
            *ARENA_FRAMES[1:],
        ),
        (
            *GAME_SHAPES,
            "races/events.py::racer_dict,race_dict,announce_finishes",
            "races/actions.py::joined_events,countdown_data,update_autostart,do_leave_race,"
            "cancel,do_set_ready,progress_event,_close,do_rematch",
            "races/snapshots.py::snapshot,spectator_board",
            "races/play.py::live_racer,live_progress_frame",
            "races/consumers.py::act,race_next",
            "arenas/models.py::next_race_wait",
        ),
        ("races/actions.py", "races/events.py", "arenas/results.py"),
    ),
    "arena": Source(
        ("games/sockets.py::parse,_value,over_budget,refuse,error_frame,pong_frame", *ARENA_FRAMES),
        (
            "games/sockets.py::error_frame,pong_frame,refuse",
            "arenas/consumers.py::placed",
            *ARENA_FRAMES[1:],
        ),
    ),
}


# ------------------------------------------------------------------ the doc


def doc_sections() -> dict[str, str]:
    text = DOC.read_text()
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    found = {}
    for name, heading in HEADINGS.items():
        matching = [part for part in parts if heading in part.split("\n", 1)[0]]
        assert len(matching) == 1, f"docs/protocol.md has no single section headed {heading}"
        found[name] = matching[0]
    return found


def subsection(text: str, heading: str) -> str:
    """The part of a section under its `### heading`."""
    parts = re.split(r"^### ", text, flags=re.MULTILINE)
    matching = [part for part in parts if part.startswith(heading)]
    assert matching, f"no `### {heading}` here"
    return matching[0]


def tables(text: str) -> list[list[list[str]]]:
    """The markdown tables of a text: each a list of rows (the header first), each row its cells."""
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def table(text: str, first_header: str) -> list[list[str]]:
    """The one table whose header's first cell is this, without the header."""
    matching = [rows for rows in tables(text) if rows[0][0] == first_header]
    assert len(matching) == 1, f"expected one table headed `{first_header}`, found {len(matching)}"
    return matching[0][1:]


def ticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", text))


def names(text: str, name: str) -> bool:
    """Whether the text names a field or type: `name`, or "name" in a JSON example."""
    return f"`{name}`" in text or f'"{name}"' in text


# ------------------------------------------------------------------ the code


def nodes(part: str) -> list[ast.AST]:
    """The syntax trees of a part: a whole file, or the named functions of one."""
    path, _, wanted = part.partition("::")
    tree = ast.parse((ROOT / path).read_text(), path)
    if not wanted:
        return [tree]
    functions = set(wanted.split(","))
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in functions
    ]
    assert {node.name for node in found} == functions, f"{part}: some function is gone"
    return found


def walk(parts) -> list[ast.AST]:
    return [node for part in parts for top in nodes(part) for node in ast.walk(top)]


def text(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def called(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
    return None


def class_codes(tree: ast.AST) -> dict[str, str]:
    """Each class with a literal `code = "…"` (the refusals of games.errors and their kin)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if (
                    isinstance(statement, ast.Assign)
                    and [getattr(t, "id", None) for t in statement.targets] == ["code"]
                    and text(statement.value)
                ):
                    found[node.name] = statement.value.value
    return found


def all_class_codes() -> dict[str, str]:
    found: dict[str, str] = {}
    for app in ("games", "races", "arenas", "daily"):
        for path in sorted((ROOT / app).rglob("*.py")):
            for name, code in class_codes(ast.parse(path.read_text(), str(path))).items():
                assert found.setdefault(name, code) == code, f"two classes {name}, two codes"
    return found


def error_codes(parts) -> set[str]:
    """The error codes these parts can send: literal codes of refusals, refusal classes they
    define, and refusal classes they raise or make (an `Unavailable(…)` built in `refuse`)."""
    by_class = all_class_codes()
    found = set()
    for part in parts:
        for top in nodes(part):
            found |= set(class_codes(top).values())
    for node in walk(parts):
        name = called(node)
        if name in REFUSERS and node.args and text(node.args[0]):
            found.add(node.args[0].value)
        elif name in by_class:
            found.add(by_class[name])
    return found


def dict_type(node: ast.Dict) -> str | None:
    """A dict literal's literal `type`, if it has one."""
    return next(
        (text(v) for k, v in zip(node.keys, node.values, strict=True) if text(k) == "type"), None
    )


def frame_types(parts) -> set[str]:
    """The `type`s of the frames built here (a channel layer's own messages have a dot)."""
    found = set()
    for node in walk(parts):
        if isinstance(node, ast.Dict):
            kind = dict_type(node)
            if kind and "." not in kind:
                found.add(kind)
        elif called(node) in ("send_update", "game_frame", "send_board") and node.args:
            # `"state" if update.duplicate else "ack"` names two
            found |= {text(part) for part in ast.walk(node.args[0]) if text(part)}
    return found


def event_kinds(parts) -> set[str]:
    """The kinds of numbered race events made here: `emit(race, "kind", …)`, `append(race,
    "kind", …)`, and the `("kind", data)` pairs handed to `emit_all` and to a close."""
    found = set()
    for node in walk(parts):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("emit", "append")
            and len(node.args) >= 2
            and text(node.args[1])
        ):
            found.add(node.args[1].value)
        elif (
            isinstance(node, ast.Tuple)
            and len(node.elts) == 2
            and text(node.elts[0])
            and isinstance(node.elts[1], ast.Dict | ast.Name | ast.Call)
        ):
            found.add(node.elts[0].value)
    return found


def frame_keys(parts) -> set[str]:
    """Every field these frame builders write: a dict's literal keys, `frame["key"] = …`, the
    keyword arguments of `emit`, and the names a board keeps of a state (`keep`)."""
    found = set()
    for node in walk(parts):
        if isinstance(node, ast.Dict):
            if "." not in (dict_type(node) or ""):  # not a channel layer's own message
                found |= {key.value for key in node.keys if text(key)}
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if text(node.slice):
                found.add(node.slice.value)
        elif called(node) == "emit":
            found |= {keyword.arg for keyword in node.keywords if keyword.arg}
    return found - {"type"}


def close_codes(parts) -> set[int]:
    """The close codes these parts use: the `CLOSE_…` constants they name."""
    constants = {}
    for app in ("games", "races", "arenas", "daily"):
        for path in sorted((ROOT / app).rglob("*.py")):
            for node in ast.parse(path.read_text(), str(path)).body:
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id.startswith("CLOSE_"):
                            constants[target.id] = node.value.value
    return {constants[node.id] for node in walk(parts) if getattr(node, "id", "") in constants}


# ------------------------------------------------------------------ the checks

SOCKETS = ("game", "daily", "race", "arena")


@pytest.mark.parametrize("socket", SOCKETS)
def test_every_message_a_socket_accepts_is_documented_with_its_fields(socket):
    """Each `type` a socket parses has its row in the section's Client → server table (the daily
    socket's section names them: the practice table holds them), naming every field, and each
    text field's longest length."""
    section = doc_sections()[socket]
    if socket == "daily":
        missing = [kind for kind in MESSAGES[socket] if f"`{kind}`" not in section]
        assert not missing, f"the daily section does not name {missing}"
        return
    rows = {}
    for row in table(subsection(section, "Client → server"), "type"):
        for kind in ticked(row[0]):
            rows[kind] = " | ".join(row[1:])
    missing = sorted(set(MESSAGES[socket]) - set(rows))
    assert not missing, f"{socket}: no row for the messages {missing}"
    stale = sorted(set(rows) - set(MESSAGES[socket]))
    assert not stale, f"{socket}: rows for messages the socket does not take: {stale}"
    wrong = []
    for kind, (_, fields) in MESSAGES[socket].items():
        for name, spec in fields.items():
            if f"`{name}`" not in rows[kind]:
                wrong.append(f"{kind}: field `{name}` not named")
            elif spec.kind == "text" and not re.search(rf"\b{spec.limit}\b", rows[kind]):
                wrong.append(f"{kind}: `{name}`'s limit, {spec.limit} characters, not said")
    assert not wrong, wrong


@pytest.mark.parametrize("socket", ["game", "race", "arena"])
def test_every_error_code_a_socket_can_send_is_in_its_table(socket):
    """The socket's error table lists every code its code can answer with, and none other."""
    codes = error_codes(SOURCES[socket].parts)
    if socket == "race":
        assert codes >= FORM_ONLY, "a set-up refusal is gone: take it off FORM_ONLY"
        codes -= FORM_ONLY
    listed = set()
    for row in table(doc_sections()[socket], "code"):
        listed |= ticked(row[0])
    unlisted, stale = sorted(codes - listed), sorted(listed - codes)
    assert not unlisted, f"{socket}: codes its error table does not list: {unlisted}"
    assert not stale, f"{socket}: codes listed that the socket never sends: {stale}"


@pytest.mark.parametrize("socket", ["game", "race", "arena"])
def test_every_frame_the_server_sends_is_documented_with_its_fields(socket):
    """Every frame `type` a socket's code builds is named in its section, and so is every field
    its frame builders write."""
    section = doc_sections()[socket]
    source = SOURCES[socket]
    missing = sorted(kind for kind in frame_types(source.parts) if not names(section, kind))
    assert not missing, f"{socket}: frames the doc does not name: {missing}"
    unnamed = sorted(key for key in frame_keys(source.shapes) if not names(section, key))
    assert not unnamed, f"{socket}: fields the doc does not name: {unnamed}"


def test_every_numbered_race_event_has_its_row():
    """Each kind of numbered race event has its row in the race's event table, and the table
    has no row for a kind that is never made."""
    kinds = event_kinds(SOURCES["race"].events)
    rows = table(doc_sections()["race"], "event `type`")
    listed = set()
    for row in rows:
        listed |= ticked(row[0])
    live = {"standings", "placed", "edited"}  # the wait's frames, in the table though unnumbered
    unlisted, stale = sorted(kinds - listed), sorted(listed - kinds - live)
    assert not unlisted, f"events without a row: {unlisted}"
    assert not stale, f"rows of events never made: {stale}"


@pytest.mark.parametrize("socket", ["game", "race", "arena"])
def test_every_close_code_is_documented(socket):
    """Each close code a socket uses is said in its section and in the closes' table."""
    sections = doc_sections()
    closes = {code for row in table(sections["closes"], "code") for code in ticked(row[0])}
    for code in close_codes(SOURCES[socket].parts):
        assert re.search(rf"\b{code}\b", sections[socket]), f"{socket}: close {code} not said"
        assert str(code) in closes, f"close {code} has no row in the closes' table"


@pytest.mark.parametrize("socket", ["game", "race", "arena"])
def test_every_message_both_ways_has_a_json_example(socket):
    """Each message a socket takes, each frame and event it sends, has a JSON example in the
    socket's section (`{"type": "…"` opening an object)."""
    section = doc_sections()[socket]
    kinds = set(MESSAGES[socket]) | frame_types(SOURCES[socket].parts)
    kinds |= event_kinds(SOURCES[socket].events)
    missing = sorted(kind for kind in kinds if f'{{"type": "{kind}"' not in section)
    assert not missing, f"{socket}: no JSON example of {missing}"
