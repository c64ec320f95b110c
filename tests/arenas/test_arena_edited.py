"""An arena an admin changes in place (the schedule's edit: a new length, so a new end, or a new
game; the arena's own admin page: its times, name, races' limit): the pages open on it are
sent `edited` after the commit, and its rooms go by the new times from then on."""

import asyncio
import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from arenas import events, rooms
from arenas.models import Arena, ArenaSchedule
from arenas.schedule import make_coming
from tests.arenas.test_arena_next_race_socket import placed_together
from tests.arenas.test_arena_schedule import schedule_form
from tests.arenas.test_arena_socket import FakeSocket

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_countdown", "fast_ticks"),
]


def ms(at) -> int:
    return int(at.timestamp() * 1000)


async def told(page) -> dict:
    """The page's next `edited` frame, within a few seconds (boards come meanwhile)."""
    async with asyncio.timeout(5):
        return await page.expect("edited")


async def frames_for(socket, seconds: float) -> list[dict]:
    """Every frame the socket gets within `seconds`."""
    got = []
    async with asyncio.timeout(seconds + 5):
        while not await socket.receive_nothing(seconds):
            got.append(await socket.next())
    return got


def hourly() -> tuple[ArenaSchedule, Arena]:
    """Penguin every hour, 30 minutes long, its day of arenas made; its arena of three hours
    from now."""
    every = ArenaSchedule.objects.create(variant="penguin", every_minutes=60, length_minutes=30)
    make_coming()
    later = timezone.now() + timedelta(hours=3)
    return every, Arena.objects.filter(schedule=every, starts_at__gt=later).first()


async def test_a_page_open_on_a_coming_arena_follows_its_schedule_s_new_length(
    admin_client, arena_socket, run
):
    """Its start stays (and so its link): the page is told the new end, with what else it shows
    of the arena, and the room goes by it."""
    every, arena = await run(hourly)
    page = await arena_socket(None, arena.public_id)
    await page.expect("standings")
    url = reverse("admin:arenas_arenaschedule_change", args=[every.pk])
    answer = await run(admin_client.post, url, schedule_form(length_minutes=45))
    assert answer.status_code == 302
    frame = await told(page)
    assert frame["starts_at"] == ms(arena.starts_at)
    assert frame["ends_at"] == ms(arena.starts_at + timedelta(minutes=45))
    assert (frame["name"], frame["variant"], frame["game"]) == (arena.name, "penguin", "Penguin")
    assert (frame["race_time_limit_s"], frame["visibility"]) == (300, "public")
    assert isinstance(frame["now"], int)
    room = rooms.ROOMS.get().rooms[arena.pk]
    assert room.arena.ends_at == arena.starts_at + timedelta(minutes=45)


async def test_a_new_game_renames_the_coming_arena_on_its_open_page(
    admin_client, arena_socket, run
):
    every, arena = await run(hourly)
    page = await arena_socket(None, arena.public_id)
    url = reverse("admin:arenas_arenaschedule_change", args=[every.pk])
    await run(admin_client.post, url, schedule_form(variant="queenie"))
    frame = await told(page)
    assert frame["name"] == "Hourly Queenie arena"
    assert (frame["variant"], frame["game"]) == ("queenie", "Queenie")
    assert frame["ends_at"] == ms(arena.ends_at)


async def test_a_save_that_changes_nothing_tells_the_pages_nothing(
    admin_client, arena_socket, run, monkeypatch
):
    monkeypatch.setattr(rooms, "BOARD_AT_LEAST_S", 3600)
    every, arena = await run(hourly)
    page = await arena_socket(None, arena.public_id)
    url = reverse("admin:arenas_arenaschedule_change", args=[every.pk])
    await run(admin_client.post, url, schedule_form())
    assert "edited" not in [frame["type"] for frame in await frames_for(page, 1)]


def arena_form(arena: Arena, **changes) -> dict:
    """The arena's admin change form as it stands, with these changes (times in UTC)."""
    fields = {
        "name": arena.name,
        "variant": arena.variant,
        "starts_at": arena.starts_at,
        "ends_at": arena.ends_at,
        "visibility": arena.visibility,
        "race_time_limit_s": arena.race_time_limit_s,
        "created_by": "",
        "schedule": "",
        **changes,
    }
    for name in events.TIMES:
        at = fields.pop(name)
        fields[f"{name}_0"], fields[f"{name}_1"] = f"{at:%Y-%m-%d}", f"{at:%H:%M:%S}"
    return fields


async def test_an_end_an_admin_moves_into_the_past_ends_the_arena_on_its_open_page(
    admin_client, make_arena, arena_socket, run
):
    """The room's board counts the races still finishing (none: the standings are final) from
    the next board on, as for an arena that ended on time: the room goes by the new end."""
    arena = await run(make_arena, -120)
    await run(
        Arena.objects.filter(pk=arena.pk).update,
        starts_at=arena.starts_at.replace(microsecond=0),
    )
    await run(arena.refresh_from_db)
    page = await arena_socket(None, arena.public_id)
    assert "finishing" not in await page.expect("standings")
    ended = arena.starts_at + timedelta(seconds=60)
    url = reverse("admin:arenas_arena_change", args=[arena.pk])
    answer = await run(admin_client.post, url, arena_form(arena, ends_at=ended))
    assert answer.status_code == 302
    frame = await told(page)
    assert frame["ends_at"] == ms(ended) and frame["starts_at"] == ms(arena.starts_at)
    assert (await page.expect("standings"))["finishing"] == 0


async def test_a_race_page_waiting_for_its_next_race_is_sent_edited_too(arena, run):
    """An admin who moves a running arena's end: the race pages that wait in it for their next
    race wait up to the new end (and count down to it), as the arena's own pages do; each is
    sent `edited` once."""
    room = rooms.Room(rooms.Rooms(), arena)
    page, waiting = FakeSocket(), FakeSocket()
    waiting.rows = False
    room.sockets.update({page, waiting})
    room.dirty = False
    later = await run(Arena.objects.get, pk=arena.pk)
    later.ends_at += timedelta(minutes=15)
    room.hear(events.edited_message(later))
    await asyncio.sleep(0.1)
    for socket in (page, waiting):
        frames = [json.loads(text) for text in socket.sent]
        assert [frame["type"] for frame in frames] == ["edited"]
        assert frames[0]["ends_at"] == ms(later.ends_at)
    assert room.arena.ends_at == later.ends_at and room.dirty


async def test_a_board_read_while_an_admin_moves_the_end_is_read_again_before_it_is_sent(
    arena, run, monkeypatch
):
    """A board read under way when the edit comes goes by the old times: the room reads it again
    and sends the one that goes by the new, after `edited` (a page shown the old board after
    `edited` showed an ended arena as running until the next board)."""
    room = rooms.Room(rooms.Rooms(), arena)
    page = FakeSocket()
    room.sockets.add(page)
    before = arena.ends_at
    later = await run(Arena.objects.get, pk=arena.pk)
    later.ends_at += timedelta(minutes=15)
    ends_read = []

    async def read(self) -> dict:
        ends_read.append(self.arena.ends_at)
        if len(ends_read) == 1:  # the edit comes while the first read is under way
            self.hear(events.edited_message(later))
        return {"type": "standings", "ends_at": ms(self.arena.ends_at)}

    monkeypatch.setattr(rooms.Room, "_read", read)
    await room.send_board([page])
    await asyncio.sleep(0.1)
    assert ends_read == [before, later.ends_at]
    frames = [json.loads(text) for text in page.sent]
    assert [f["type"] for f in frames] == ["edited", "standings"]
    assert frames[1]["ends_at"] == ms(later.ends_at)


async def test_the_race_pages_of_a_running_arena_s_races_under_way_are_sent_edited(
    arena, arena_socket, race_socket, run, make_client
):
    """An admin who moves a running arena's end: its racers' pages, racing, count down to the
    new end in their headers (each race socket of its races under way is sent `edited`)."""
    (ann, bob), race = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    sockets = [await race_socket(client, race.code) for client in (ann, bob)]
    for socket in sockets:
        await socket.expect("snapshot")
    later = await run(Arena.objects.get, pk=arena.pk)
    later.ends_at += timedelta(minutes=15)
    await run(later.save)
    await run(events.edited, [later])
    for socket in sockets:
        frame = await socket.expect("edited")
        assert frame["ends_at"] == ms(later.ends_at) and frame["name"] == later.name
        assert isinstance(frame["now"], int)
