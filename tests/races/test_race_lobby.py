"""The lobby over the socket: joining, leaving, the host's role, the cap, names."""

import pytest

from races.models import Race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]


@pytest.fixture
async def people(make_client, run):
    return [await run(make_client, name) for name in ("Ann", "Bob", "Cat")]


async def open_lobby(people, make_race, race_socket, run, **settings):
    race = await run(make_race, people[0], **settings)
    sockets = []
    for i, client in enumerate(people):
        socket = await race_socket(client, race.code)
        await socket.expect("snapshot")
        if i:
            await socket.request({"type": "join"}, "joined")
        sockets.append(socket)
    return race, sockets


async def test_leaving_the_lobby_is_an_event(people, make_race, race_socket, run):
    """A racer who leaves is gone for everyone."""
    race, (ann, bob, cat) = await open_lobby(people, make_race, race_socket, run)
    left = await cat.request({"type": "leave"}, "left")
    assert (await ann.expect("left"))["racer"] == left["racer"]
    assert left["racer"] not in left["standings"]


async def test_the_host_role_passes_on_when_the_host_leaves(people, make_race, race_socket, run):
    """The next racer to have joined becomes host, and may start."""
    race, (ann, bob, cat) = await open_lobby(people, make_race, race_socket, run)
    await ann.request({"type": "leave"}, "left")
    host = await bob.expect("host")
    assert host["racer"] == next(f for f in bob.seen if f["type"] == "joined")["racer"]["id"]
    await bob.request({"type": "start"}, "countdown")


async def test_an_empty_lobby_is_cancelled(people, make_race, race_socket, run):
    """When the last racer leaves, the race is cancelled."""
    race, (ann,) = await open_lobby(people[:1], make_race, race_socket, run)
    await ann.request({"type": "leave"}, "left")
    cancelled = await ann.expect("cancelled")
    assert cancelled["race"]["status"] == "cancelled"
    assert "seed" in cancelled["race"], "a cancelled race has nothing left to hide"


async def test_a_full_race_refuses_a_joiner(people, make_race, race_socket, run):
    """max_players 2: the third is refused with `race_full`."""
    race, (ann, bob) = await open_lobby(people[:2], make_race, race_socket, run, max_players=2)
    cat = await race_socket(people[2], race.code)
    await cat.expect("snapshot")
    assert (await cat.error({"type": "join"}))["code"] == "race_full"


async def test_joining_twice_changes_nothing(people, make_race, race_socket, run):
    """A racer who joins again stays one racer; no event is sent."""
    race, (ann, bob) = await open_lobby(people[:2], make_race, race_socket, run)
    await ann.expect("joined")
    await bob.send_json_to({"type": "join"})
    await ann.quiet()
    assert await run(lambda: Race.objects.get(pk=race.pk).racers.count()) == 2


async def test_a_bad_nickname_is_refused(people, make_race, race_socket, run):
    """Names follow the nickname rules: `bad_name`."""
    race = await run(make_race, people[0])
    bob = await race_socket(people[1], race.code)
    await bob.expect("snapshot")
    assert (await bob.error({"type": "join", "name": "<b>"}))["code"] == "bad_name"


async def test_another_players_nickname_is_refused(people, make_race, race_socket, run):
    """A chosen name is its player's alone, in any case: `name_taken`, and Bob is not in."""
    race = await run(make_race, people[0])
    bob = await race_socket(people[1], race.code)
    await bob.expect("snapshot")
    taken = (await run(lambda: race.host.nickname)).upper()
    assert (await bob.error({"type": "join", "name": taken}))["code"] == "name_taken"
    assert await run(lambda: Race.objects.get(pk=race.pk).racers.count()) == 1


async def test_a_visitor_without_a_session_may_watch_but_not_join(
    people, make_race, race_socket, run
):
    """No session, no player: the socket watches; `join` is refused with `not_in_race`."""
    race = await run(make_race, people[0])
    anonymous = await race_socket(None, race.code)
    snap = await anonymous.expect("snapshot")
    assert snap["you"] == {"racer": None, "host": False, "name": None}
    refused = await anonymous.error({"type": "join"})
    assert refused["code"] == "not_in_race" and "the race page's form" in refused["reason"]


async def test_spectators_cannot_toggle_ready_or_leave(people, make_race, race_socket, run):
    """Lobby actions are for racers."""
    race = await run(make_race, people[0])
    bob = await race_socket(people[1], race.code)
    await bob.expect("snapshot")
    assert (await bob.error({"type": "ready"}))["code"] == "not_in_race"
    assert (await bob.error({"type": "leave"}))["code"] == "not_in_race"


async def test_a_lone_ready_racer_does_not_start(people, make_race, race_socket, run):
    """Ready alone is not a start: autostart needs two racers."""
    race, (ann,) = await open_lobby(people[:1], make_race, race_socket, run)
    await ann.request({"type": "ready"}, "ready")
    await ann.quiet()


async def test_a_host_may_race_alone(people, make_race, race_socket, run):
    """A solo race: the host starts with nobody else."""
    race, (ann,) = await open_lobby(people[:1], make_race, race_socket, run)
    countdown = await ann.request({"type": "start"}, "countdown")
    assert len(countdown["racers"]) == 1
    assert (await ann.board())["seq"] == 0


async def test_a_race_starts_once(people, make_race, race_socket, run):
    """Start after the start is refused with `race_started`."""
    race, (ann, bob) = await open_lobby(people[:2], make_race, race_socket, run)
    await ann.request({"type": "start"}, "countdown")
    assert (await ann.error({"type": "start"}))["code"] == "race_started"
    assert (await bob.error({"type": "ready"}))["code"] == "race_started"
    assert (await bob.error({"type": "leave"}))["code"] == "race_started"
