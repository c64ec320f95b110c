"""A quick race over its sockets (issue 17): the lobby clock reaches the page, a socket's timer
starts the race at the clock's end, and a racer whose page closes before the start leaves."""

import pytest

from races import quick
from races.models import Race, RaceEvent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]


@pytest.fixture
async def duo(make_client, run, settings):
    """Ann and Bob in one quick race (a 0.5 s lobby), each with the race's socket open."""
    settings.QUICK_RACE_LOBBY_S = 0.5
    ann, bob = await run(make_client, "Ann"), await run(make_client, "Bob")
    race = await run(quick.do_quick_race, ann.player, "eighty-thieves")
    return race, ann, bob


async def test_a_sockets_timer_starts_the_race_when_its_lobby_time_is_up(duo, race_socket, run):
    race, ann, bob = duo
    ann_socket = await race_socket(ann, race.code)
    snapshot = await ann_socket.expect("snapshot")
    assert snapshot["race"]["quick"] and snapshot["race"]["autostart_at"] is None
    await run(quick.do_quick_race, bob.player, "eighty-thieves")
    autostart = await ann_socket.expect("autostart")
    assert autostart["at"] is not None
    countdown = await ann_socket.expect("countdown", timeout=10)  # nobody asked: the timer did
    assert len(countdown["racers"]) == 2


async def test_a_quick_race_takes_no_ready_so_its_racers_cannot_start_it_early(
    duo, race_socket, run, settings
):
    """Every racer of a quick race sending `ready` (a hand-made client: the page has no Ready
    button) does not start it before its lobby time is up, when more players may still be
    matched into it: each `ready` and un-ready is refused `quick_race`, and nothing changes."""
    settings.QUICK_RACE_LOBBY_S = 60
    race, ann, bob = duo
    await run(quick.do_quick_race, bob.player, "eighty-thieves")
    sockets = [await race_socket(player, race.code) for player in (ann, bob)]
    for socket in sockets:
        await socket.expect("snapshot")
    before = await run(lobby_fingerprint, race)
    for ready in (True, False, True):
        for socket in sockets:
            refusal = await socket.error({"type": "ready", "ready": ready})
            assert (refusal["code"], refusal["ref"]) == ("quick_race", "ready")
    await sockets[0].quiet()
    assert await run(lobby_fingerprint, race) == before


async def test_a_racer_whose_page_closes_before_the_start_leaves(duo, race_socket, run):
    race, ann, bob = duo
    await run(quick.do_quick_race, bob.player, "eighty-thieves")
    ann_socket = await race_socket(ann, race.code)
    await ann_socket.expect("snapshot")
    bob_socket = await race_socket(bob, race.code)
    await bob_socket.expect("snapshot")
    await bob_socket.disconnect()
    left = await ann_socket.expect("left")
    assert (await ann_socket.expect("autostart"))["at"] is None, "alone again: no clock"
    assert await run(lambda: Race.objects.get(pk=race.pk).racers.count()) == 1
    assert left["standings"] == [snap_racer(ann_socket)]


async def test_a_quick_race_its_last_racer_left_stays_open_for_the_next(duo, race_socket, run):
    """Not cancelled: a reloaded page takes the seat back, or the next press fills the race."""
    race, ann, bob = duo
    ann_socket = await race_socket(ann, race.code)
    await ann_socket.expect("snapshot")
    await ann_socket.disconnect()
    assert await run(lambda: Race.objects.get(pk=race.pk).status) == Race.Status.LOBBY
    again = await race_socket(ann, race.code)
    assert (await again.expect("snapshot"))["you"]["racer"] is None
    await again.request({"type": "join"}, "joined")  # what the reloaded page sends
    assert await run(quick.do_quick_race, bob.player, "eighty-thieves") == race


async def test_a_racer_whose_page_closes_after_the_start_stays(duo, race_socket, run):
    race, ann, bob = duo
    await run(quick.do_quick_race, bob.player, "eighty-thieves")
    bob_socket = await race_socket(bob, race.code)
    await bob_socket.expect("snapshot")
    await bob_socket.expect("countdown", timeout=10)
    await bob_socket.disconnect()
    assert await run(lambda: Race.objects.get(pk=race.pk).racers.count()) == 2


def snap_racer(socket) -> str:
    return next(f for f in socket.seen if f["type"] == "snapshot")["you"]["racer"]


def lobby_fingerprint(race: Race) -> tuple:
    """What a lobby action could change: the race's row, its racers' readiness, its events."""
    race = Race.objects.get(pk=race.pk)
    ready = sorted(race.racers.values_list("public_id", "ready"))
    events = RaceEvent.objects.filter(race=race).count()
    return (race.status, race.starts_at, race.autostart_at, race.event_seq, ready, events)
