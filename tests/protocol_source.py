"""What the sockets' code speaks, read from the source: each socket's message table, and a scan
of the modules that answer its frames (the literal codes of their refusals, the `type`s and keys
of the frames they build, the numbered race events they make, the close codes they use). The
one reading of it that docs/protocol.md is checked against (tests/test_protocol_doc.py) and
that the hostile suites take their list of refusals from (tests/hostile_harness.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from arenas import consumers as arena_consumers
from games import sockets
from races import consumers as race_consumers

ROOT = Path(__file__).resolve().parent.parent

SOCKETS = ("game", "daily", "race", "arena")

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


APPS = ("games", "races", "arenas", "daily")
"""The apps whose modules answer the sockets' frames."""


@cache
def parsed(path: str) -> ast.Module:
    """A module's syntax tree, read once a run (every scan of it shares the one tree)."""
    return ast.parse((ROOT / path).read_text(), path)


def app_trees() -> list[ast.Module]:
    """The syntax trees of every module of the apps."""
    paths = [path for app in APPS for path in sorted((ROOT / app).rglob("*.py"))]
    return [parsed(str(path.relative_to(ROOT))) for path in paths]


def nodes(part: str) -> list[ast.AST]:
    """The syntax trees of a part: a whole file, or the named functions of one."""
    path, _, wanted = part.partition("::")
    tree = parsed(path)
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


@cache
def all_class_codes() -> dict[str, str]:
    found: dict[str, str] = {}
    for tree in app_trees():
        for name, code in class_codes(tree).items():
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
    for tree in app_trees():
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.startswith("CLOSE_"):
                        constants[target.id] = node.value.value
    return {constants[node.id] for node in walk(parts) if getattr(node, "id", "") in constants}


def sent_codes(socket: str) -> set[str]:
    """The error codes this socket can send (the race's set-up form's own refusals left out:
    `FORM_ONLY`)."""
    codes = error_codes(SOURCES[socket].parts)
    return codes - FORM_ONLY if socket == "race" else codes
