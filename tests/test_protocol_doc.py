"""docs/protocol.md says what the sockets' code speaks, so that it cannot drift from it unseen:
every message a socket accepts (each in its table, with its fields and the length of each text
field), every error code a socket can answer with (each in that socket's error table, and no
code there that the socket cannot send), every frame and numbered event the server sends with
their fields, and every close code. All of it is read from the source (tests/protocol_source.py,
whose list of refusals the hostile suites hold every error frame to): the sockets' message
tables, and a scan of the modules that answer a socket's frames (the literal codes of their
refusals, the `type`s and keys of the frames they build)."""

from __future__ import annotations

import re

import pytest

from tests.protocol_source import (
    FORM_ONLY,
    MESSAGES,
    ROOT,
    SOCKETS,
    SOURCES,
    close_codes,
    error_codes,
    event_kinds,
    frame_keys,
    frame_types,
    sent_codes,
)

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


# ------------------------------------------------------------------ the checks


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
    if socket == "race":
        found = error_codes(SOURCES[socket].parts)
        assert found >= FORM_ONLY, "a set-up refusal is gone: take it off FORM_ONLY"
    codes = sent_codes(socket)
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
