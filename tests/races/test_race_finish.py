"""Winning, the winner's time, the order of the standings, and what spectators see."""

import pytest

from races.models import Race, Racer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]


@pytest.fixture
async def running(open_duo, near_win_for):
    """Ann and Bob racing, each with their board; Bob's game starts one move (t0-f3) from won."""
    duo = await open_duo(start=True, before_start=lambda d: near_win_for(d.clients["bob"].player))
    return duo.race, duo.sockets["ann"], duo.sockets["bob"], duo.ids


async def test_the_winning_move_finishes_the_racer_with_the_servers_time(running, run):
    """The win is timed by the server from the race start to the winning move; won ranks first."""
    race, ann_socket, bob_socket, ids = running
    ack = await bob_socket.request({"type": "move", "move": "t0-f3", "seq": 0}, "ack")
    assert ack["status"] == "won" and ack["legal"] == []
    progress = await ann_socket.expect("progress")
    winner = progress["racers"][0]
    assert winner["status"] == "won" and winner["cards"] == 52
    row = await run(Racer.objects.select_related("race", "game").get, public_id=ids["bob"])
    expected = int((row.game.finished_at - row.race.starts_at).total_seconds() * 1000)
    assert winner["finish_ms"] == expected >= 0
    assert progress["standings"] == [ids["bob"], ids["ann"]]


async def test_a_winner_may_not_move_again_and_the_race_goes_on(running):
    """After winning: `already_finished`; the race ends when the last racer is done."""
    race, ann_socket, bob_socket, ids = running
    await bob_socket.request({"type": "move", "move": "t0-f3", "seq": 0}, "ack")
    error = await bob_socket.error({"type": "undo", "seq": 1})
    assert error["code"] == "already_finished"
    finished = await ann_socket.request({"type": "resign"}, "finished")
    places = {r["id"]: r["place"] for r in finished["racers"]}
    assert places == {ids["bob"]: 1, ids["ann"]: 2}


async def test_unfinished_racers_rank_by_cards(running, run):
    """At the close, more cards ranks higher whoever resigned first."""
    race, ann_socket, bob_socket, ids = running
    await bob_socket.request({"type": "resign"}, "progress")
    finished = await ann_socket.request({"type": "resign"}, "finished")
    assert finished["standings"] == [ids["bob"], ids["ann"]]
    stored = await run(lambda: dict(Racer.objects.values_list("public_id", "place")))
    assert stored == {ids["bob"]: 1, ids["ann"]: 2}


async def test_a_spectator_sees_every_board_and_the_standings(
    running, race_socket, make_client, run
):
    """A watcher gets a snapshot and each racer's board (player view, no game id, no legal)."""
    race, ann_socket, bob_socket, ids = running
    watcher = await race_socket(await run(make_client, "Eve"), race.code)
    snap = await watcher.expect("snapshot")
    assert snap["you"]["racer"] is None
    boards = {(await watcher.expect("board"))["racer"] for _ in range(2)}
    assert boards == {ids["ann"], ids["bob"]}
    ack = await ann_socket.request(
        {"type": "move", "move": (await _legal(ann_socket))[0], "seq": 0}, "ack"
    )
    board = await watcher.expect("board", racer=ids["ann"])
    assert board["seq"] == ack["seq"] and board["view"] == ack["view"]
    assert "game" not in board and "legal" not in board
    # Ann's live progress: before or after her board (they travel different ways).
    moved = [r for f in watcher.seen if f["type"] == "progress" for r in f["racers"]]
    while not any(r["id"] == ids["ann"] and r["moves"] == 1 for r in moved):
        moved = (await watcher.expect("progress"))["racers"]


async def _legal(socket):
    return next(f for f in socket.seen if f["type"] == "state")["legal"]


async def test_a_spectator_in_the_lobby_gets_the_boards_at_the_start(
    make_client, make_race, race_socket, run
):
    """Watching from the lobby: no board during the countdown, every board at the start."""
    ann, eve = await run(make_client, "Ann"), await run(make_client, "Eve")
    race = await run(make_race, ann)
    ann_socket = await race_socket(ann, race.code)
    await ann_socket.expect("snapshot")
    watcher = await race_socket(eve, race.code)
    await watcher.expect("snapshot")
    await ann_socket.request({"type": "start"}, "countdown")
    countdown = await watcher.expect("countdown")
    board = await watcher.expect("board")
    assert board["now"] >= countdown["race"]["starts_at"]


async def test_finished_races_show_game_ids_for_replays(running):
    """Once over, every racer carries their game id (for /replay/<id>/), and the seed is out."""
    race, ann_socket, bob_socket, ids = running
    await ann_socket.request({"type": "resign"}, "progress")
    finished = await bob_socket.request({"type": "resign"}, "finished")
    assert all(r["game"] for r in finished["racers"])
    assert finished["race"]["seed"].isdigit(), "a string: 63 bits do not fit a JS number"
    assert (await Race.objects.aget(pk=race.pk)).status == Race.Status.FINISHED


async def test_rematch_over_the_socket_sends_everyone_to_the_new_lobby(running, race_socket, run):
    """`rematch` after the end: every socket gets the new race's code and address."""
    race, ann_socket, bob_socket, ids = running
    await ann_socket.request({"type": "resign"}, "progress")
    await bob_socket.request({"type": "resign"}, "finished")
    event = await bob_socket.request({"type": "rematch"}, "rematch")
    assert (await ann_socket.expect("rematch"))["code"] == event["code"]
    new = await Race.objects.aget(code=event["code"])
    assert event["url"] == f"/races/{new.code}/"
    names = await run(lambda: sorted(new.racers.values_list("name", flat=True)))
    assert names == ["Ann", "Bob"]


async def test_no_rematch_before_the_end(running):
    """A rematch during the race is refused with `race_not_over`."""
    race, ann_socket, bob_socket, ids = running
    assert (await ann_socket.error({"type": "rematch"}))["code"] == "race_not_over"
