"""The pure parts of the socket: frame parsing and the per-connection frame budget."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.sockets import (
    MAX_FRAME_BYTES,
    Autoplay,
    BadFrame,
    FrameBudget,
    Open,
    Ping,
    PlayMove,
    Undo,
    Verdict,
    parse,
)


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"type": "open", "game": "abc"}', Open(game="abc")),
        ('{"type": "move", "move": "t3-f0", "seq": 4}', PlayMove(move="t3-f0", seq=4)),
        ('{"type": "move", "move": "deal", "seq": 0, "game": "g"}', PlayMove("deal", 0, "g")),
        ('{"type": "undo", "seq": 9}', Undo(seq=9)),
        ('{"type": "autoplay", "seq": 2, "extra": [1]}', Autoplay(seq=2)),
        ('{"type": "ping"}', Ping()),
        ('{"type": "ping", "t": 17}', Ping(t=17)),
    ],
)
def test_valid_frames_parse_to_messages(text, message):
    """Each documented client message parses to its typed message; unknown keys are ignored."""
    assert parse(text) == message


def test_a_frame_of_exactly_the_limit_is_accepted():
    """4096 bytes is allowed; one more is too large (bytes, not characters)."""
    base = '{"type": "ping", "pad": ""}'
    exact = base.replace('""', '"' + "x" * (MAX_FRAME_BYTES - len(base)) + '"')
    assert len(exact.encode()) == MAX_FRAME_BYTES
    assert parse(exact) == Ping()
    wide = base.replace('""', '"' + "é" * ((MAX_FRAME_BYTES - len(base)) // 2 + 1) + '"')
    assert len(wide) < MAX_FRAME_BYTES < len(wide.encode())
    with pytest.raises(BadFrame) as refused:
        parse(wide)
    assert refused.value.code == "too_large"


def test_deep_nesting_is_bad_json_not_a_crash():
    """A frame nested thousands deep is refused as bad JSON."""
    with pytest.raises(BadFrame) as refused:
        parse("[" * 4000)
    assert refused.value.code in {"bad_json", "too_large"}
    with pytest.raises(BadFrame) as refused:
        parse("[" * 2000 + "]" * 2000)
    assert refused.value.code == "bad_json"


def test_errors_name_the_message_type():
    """A refused message's error refers to its type."""
    with pytest.raises(BadFrame) as refused:
        parse('{"type": "undo"}')
    assert (refused.value.code, refused.value.ref) == ("bad_message", "undo")


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "ping", "t": 18446744073709551616}',
        '{"type": "ping", "t": -9223372036854775809}',
        '{"type": "move", "move": "t3-f0", "seq": 9223372036854775808}',
    ],
)
def test_a_whole_number_past_64_bits_is_a_bad_message(text):
    """The server writes a `ping`'s `t` back and compares a `seq` in the record: a number past
    64 bits is refused as a bad field, not taken in to crash the answer."""
    with pytest.raises(BadFrame) as refused:
        parse(text)
    assert refused.value.code == "bad_message"


def test_the_largest_64_bit_numbers_are_taken():
    assert parse('{"type": "ping", "t": -9223372036854775808}') == Ping(t=-(2**63))
    assert parse('{"type": "undo", "seq": 9223372036854775807}') == Undo(seq=2**63 - 1)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_allows_the_limit_then_refuses():
    """30 frames in 5 s pass; the 31st is limited; past 120 it is a flood."""
    clock = FakeClock()
    budget = FrameBudget(limit=30, flood=120, window=5.0, clock=clock)
    verdicts = [budget.charge() for _ in range(121)]
    assert verdicts[:30] == [Verdict.OK] * 30
    assert verdicts[30:120] == [Verdict.LIMITED] * 90
    assert verdicts[120] == Verdict.FLOOD


def test_the_budget_refills_as_the_window_slides():
    """Frames older than the window no longer count."""
    clock = FakeClock()
    budget = FrameBudget(limit=3, flood=10, window=5.0, clock=clock)
    assert [budget.charge() for _ in range(4)][-1] == Verdict.LIMITED
    clock.now += 5.0
    assert budget.charge() == Verdict.OK


def test_a_steady_player_is_never_limited():
    """Five frames a second, for a minute, all pass."""
    clock = FakeClock()
    budget = FrameBudget(clock=clock)
    for _ in range(300):
        assert budget.charge() == Verdict.OK
        clock.now += 0.2


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
frame_objects = st.fixed_dictionaries(
    {"type": st.sampled_from(["open", "move", "undo", "autoplay", "ping", "x"]) | json_values},
    optional={"game": json_values, "move": json_values, "seq": json_values, "t": json_values},
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), frame_objects.map(json.dumps)))
def test_any_text_is_a_message_or_a_bad_frame(text):
    """Whatever a client sends, parsing gives a message or a BadFrame, never another error."""
    try:
        message = parse(text)
    except BadFrame as refused:
        assert refused.code in {"bad_json", "bad_message", "unknown_type", "too_large"}
        assert refused.reason
    else:
        assert isinstance(message, Open | PlayMove | Undo | Autoplay | Ping)
