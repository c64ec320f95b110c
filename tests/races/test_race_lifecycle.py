"""The race state machine: phases from the clock, and who may do what in each."""

import pytest

from races.lifecycle import (
    COUNTDOWN_MS,
    MAX_PLAYERS,
    NO_LIMIT_CAP_S,
    Phase,
    RacerStatus,
    RaceRuleError,
    RaceStatus,
    check_join,
    check_late_join,
    check_lobby_action,
    check_max_players,
    check_play,
    check_ready,
    check_resign,
    check_start,
    check_time_limit,
    is_complete,
    phase,
    plan_start,
    racer_status_after,
    should_autostart,
    status_at_close,
)

NOW = 1_700_000_000_000


def refused(code, fn, *args):
    with pytest.raises(RaceRuleError) as info:
        fn(*args)
    assert info.value.code == code


def test_phase_follows_the_clock_between_start_and_end():
    """A started race counts down, runs, then is overtime, by the server's clock alone."""
    starts, ends = plan_start(NOW, 60)
    assert starts == NOW + COUNTDOWN_MS and ends == starts + 60_000
    assert phase(RaceStatus.STARTED, starts, ends, NOW) == Phase.COUNTDOWN
    assert phase(RaceStatus.STARTED, starts, ends, starts - 1) == Phase.COUNTDOWN
    assert phase(RaceStatus.STARTED, starts, ends, starts) == Phase.RUNNING
    assert phase(RaceStatus.STARTED, starts, ends, ends - 1) == Phase.RUNNING
    assert phase(RaceStatus.STARTED, starts, ends, ends) == Phase.OVERTIME


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (RaceStatus.LOBBY, Phase.LOBBY),
        (RaceStatus.FINISHED, Phase.FINISHED),
        (RaceStatus.CANCELLED, Phase.CANCELLED),
    ],
)
def test_stored_status_decides_outside_the_race(status, expected):
    """Lobby, finished and cancelled races ignore the clock."""
    assert phase(status, None, None, NOW) == expected


def test_a_race_without_a_limit_is_still_capped():
    """No race stays open forever."""
    starts, ends = plan_start(NOW, None)
    assert ends - starts == NO_LIMIT_CAP_S * 1000


@pytest.mark.parametrize("seconds", [0, 14, 3601, -5])
def test_time_limits_out_of_range_are_refused(seconds):
    """Time limits are 15 s to an hour."""
    refused("bad_time_limit", check_time_limit, seconds)


@pytest.mark.parametrize("seconds", [None, 15, 300, 3600])
def test_time_limits_in_range_pass(seconds):
    """No limit, or 15 s to an hour."""
    check_time_limit(seconds)


@pytest.mark.parametrize("count", [0, MAX_PLAYERS + 1])
def test_player_caps_out_of_range_are_refused(count):
    """A race holds one to eight players."""
    refused("bad_max_players", check_max_players, count)


def test_joining_is_for_the_lobby_and_up_to_the_cap():
    """Nobody joins a started race or a full one."""
    check_join(Phase.LOBBY, 3, 4)
    refused("race_full", check_join, Phase.LOBBY, 4, 4)
    for late in (Phase.COUNTDOWN, Phase.RUNNING, Phase.FINISHED):
        refused("race_started", check_join, late, 1, 8)


@pytest.mark.parametrize("check", [check_join, check_late_join])
def test_a_full_race_says_how_many_it_holds(check):
    """'the race is full (8 players)'; a race for one is 'a solo race', never '1 players'."""
    current = Phase.LOBBY if check is check_join else Phase.COUNTDOWN
    with pytest.raises(RaceRuleError, match=r"^the race is full \(8 players\)$"):
        check(current, 8, 8)
    with pytest.raises(RaceRuleError, match=r"^the race is full \(a solo race\)$"):
        check(current, 1, 1)


def test_an_event_places_a_late_racer_only_in_the_countdown_and_up_to_the_cap():
    """An arena may put a lone player in a race nobody has moved in yet, never in one under
    way (or over, or still a lobby, which is joined the ordinary way), never past eight."""
    check_late_join(Phase.COUNTDOWN, 7, 8)
    refused("race_full", check_late_join, Phase.COUNTDOWN, 8, 8)
    for other in (Phase.LOBBY, Phase.RUNNING, Phase.OVERTIME, Phase.FINISHED, Phase.CANCELLED):
        refused("race_started", check_late_join, other, 1, 8)


def test_ready_toggles_are_for_racers_in_the_lobby():
    """A spectator cannot toggle ready, nor a racer after the start."""
    check_lobby_action(Phase.LOBBY, True)
    refused("not_in_race", check_lobby_action, Phase.LOBBY, False)
    refused("race_started", check_lobby_action, Phase.COUNTDOWN, True)


def test_a_quick_race_takes_no_ready():
    """A quick race starts on its lobby clock alone: ready (and un-ready) is refused
    `quick_race`, from anyone, at any time; any other race's racers toggle it in the lobby."""
    for current in Phase:
        for is_racer in (True, False):
            refused("quick_race", check_ready, current, is_racer, True)
    check_ready(Phase.LOBBY, True, False)
    refused("not_in_race", check_ready, Phase.LOBBY, False, False)
    refused("race_started", check_ready, Phase.COUNTDOWN, True, False)


def test_only_the_host_starts_and_may_start_alone():
    """The host starts a solo race; nobody else starts any race; a race starts once."""
    check_start(Phase.LOBBY, True, 1)
    refused("not_host", check_start, Phase.LOBBY, False, 3)
    refused("race_started", check_start, Phase.COUNTDOWN, True, 3)
    refused("no_players", check_start, Phase.LOBBY, True, 0)


@pytest.mark.parametrize(
    ("ready", "starts"),
    [
        ([], False),
        ([True], False),
        ([True, False], False),
        ([True, True], True),
        ([True] * 8, True),
    ],
)
def test_everyone_ready_starts_the_race_from_two_players(ready, starts):
    """Two or more racers, all ready, start without the host; a lone ready racer does not."""
    assert should_autostart(ready) is starts


@pytest.mark.parametrize(
    ("check", "current", "racer", "code"),
    [
        (check_play, Phase.RUNNING, None, "not_in_race"),
        (check_play, Phase.LOBBY, RacerStatus.WAITING, "not_started"),
        (check_play, Phase.COUNTDOWN, RacerStatus.PLAYING, "not_started"),
        (check_play, Phase.OVERTIME, RacerStatus.PLAYING, "race_over"),
        (check_play, Phase.FINISHED, RacerStatus.PLAYING, "race_over"),
        (check_play, Phase.RUNNING, RacerStatus.WON, "already_finished"),
        (check_play, Phase.RUNNING, RacerStatus.RESIGNED, "already_finished"),
        (check_resign, Phase.COUNTDOWN, None, "not_in_race"),
        (check_resign, Phase.LOBBY, RacerStatus.WAITING, "not_started"),
        (check_resign, Phase.COUNTDOWN, RacerStatus.RESIGNED, "already_finished"),
        (check_resign, Phase.OVERTIME, RacerStatus.PLAYING, "race_over"),
        (check_resign, Phase.FINISHED, RacerStatus.STUCK, "race_over"),
        (check_resign, Phase.RUNNING, RacerStatus.WON, "already_finished"),
    ],
)
def test_play_and_resignations_outside_the_running_race_are_refused(check, current, racer, code):
    """No move before the start, after the end, by a spectator or by a finished racer; no
    resignation in the lobby, after the end, by a spectator or twice."""
    refused(code, check, current, racer)


@pytest.mark.parametrize("current", [Phase.COUNTDOWN, Phase.RUNNING])
def test_a_racer_may_resign_from_the_countdown_on(current):
    """Giving up before the start is allowed (a move is not): the racer who leaves does not
    hold the race open until its time limit."""
    check_resign(current, RacerStatus.PLAYING)


@pytest.mark.parametrize("racer", [RacerStatus.PLAYING, RacerStatus.STUCK])
def test_playing_and_stuck_racers_may_play(racer):
    """A stuck racer may still undo or resign."""
    check_play(Phase.RUNNING, racer)


def test_status_after_a_move():
    """Won beats stuck; otherwise playing."""
    assert racer_status_after(won=True, stuck=False) == RacerStatus.WON
    assert racer_status_after(won=False, stuck=True) == RacerStatus.STUCK
    assert racer_status_after(won=False, stuck=False) == RacerStatus.PLAYING


def test_the_race_is_complete_when_everyone_won_or_resigned():
    """A stuck racer keeps the race open: they may still undo."""
    assert is_complete([RacerStatus.WON, RacerStatus.RESIGNED])
    assert not is_complete([RacerStatus.WON, RacerStatus.STUCK])
    assert not is_complete([RacerStatus.PLAYING])
    assert not is_complete([])


def test_racers_still_playing_at_the_close_ran_out_of_time():
    """Finished racers keep their status; the others ran out of time."""
    assert status_at_close(RacerStatus.WON) == RacerStatus.WON
    assert status_at_close(RacerStatus.RESIGNED) == RacerStatus.RESIGNED
    assert status_at_close(RacerStatus.PLAYING) == RacerStatus.OUT_OF_TIME
    assert status_at_close(RacerStatus.STUCK) == RacerStatus.OUT_OF_TIME
