"""An arena's room as sockets come and go: its tick and its board's round live and end together,
so a page that comes into the room while it still runs gets the board again and again (a page
that reloaded got its first board and never another: the ended arena's browser test's flake)."""

import asyncio

import pytest

from arenas import rooms

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_countdown", "fast_ticks"),
]


async def test_a_page_reloaded_while_the_room_s_tick_is_on_its_way_gets_the_board_again(
    arena, arena_socket, monkeypatch
):
    """A page reloads: its old socket leaves the room, empty a moment, and the new one comes in
    before the room's tick is back from its trip (a placement on a busy machine). The room runs
    on, and so does its board: the new page is sent one at least every `BOARD_AT_LEAST_S`. (The
    board's round ended on its own when it found the room empty, and the tick's, back to a
    socket in the room, kept the room: the new page got the board of its connect, then none.)"""
    monkeypatch.setattr(rooms, "BOARD_AT_LEAST_S", 0.3)
    back = asyncio.Event()
    back.set()
    tick = rooms.Room.tick

    async def held_tick(room) -> None:
        await back.wait()
        await tick(room)

    monkeypatch.setattr(rooms.Room, "tick", held_tick)
    old = await arena_socket(None, arena.public_id)
    await old.expect("standings")
    back.clear()  # the room's next tick is on its way
    await asyncio.sleep(2 * rooms.TICK_S)
    await old.disconnect()
    await asyncio.sleep(3 * rooms.TICK_S)  # the board's round looks at the room, empty
    new = await arena_socket(None, arena.public_id)
    await new.expect("standings")  # its connect's
    back.set()
    await new.expect("standings", timeout=5)
