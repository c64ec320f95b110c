"""The race state machine as plain rules on plain values: who may do what, and when.

A race is in the lobby until it starts; starting fixes `starts_at` (a short countdown from
now, on the server's clock) and `ends_at` (the time limit, or a hard cap for races without
one). Between the two the phase follows from the clock alone, so every process agrees without
a timer: countdown before `starts_at`, running after it, over once `ends_at` has passed (the
race is then closed by whoever notices first: a scheduled check or a refused late move). A race
also ends as soon as every racer has won or resigned.

Nothing here touches Django: `races.actions` reads the rows, asks these functions, and writes.
"""

from enum import StrEnum

COUNTDOWN_MS = 3000
MIN_PLAYERS_TO_AUTOSTART = 2
MAX_PLAYERS = 8
MIN_TIME_LIMIT_S = 15
MAX_TIME_LIMIT_S = 3600
NO_LIMIT_CAP_S = 2 * 3600
"""A race without a time limit still ends two hours after its start, so none stays open forever."""


class RaceStatus(StrEnum):
    """What is stored on the race row."""

    LOBBY = "lobby"
    STARTED = "started"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Phase(StrEnum):
    """What the race is doing at a given moment (the stored status plus the clock)."""

    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    OVERTIME = "overtime"
    """Past `ends_at` but not yet closed: moves are refused, closing is due."""
    FINISHED = "finished"
    CANCELLED = "cancelled"


class RacerStatus(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    STUCK = "stuck"
    WON = "won"
    RESIGNED = "resigned"
    OUT_OF_TIME = "out_of_time"


DONE = frozenset({RacerStatus.WON, RacerStatus.RESIGNED, RacerStatus.OUT_OF_TIME})
"""Racers who will make no more moves."""


class RaceRuleError(ValueError):
    """A request the rules refuse; `code` is the protocol's error code."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


def phase(status: str, starts_at_ms: int | None, ends_at_ms: int | None, now_ms: int) -> Phase:
    """The race's phase at `now_ms` (epoch milliseconds on the server's clock)."""
    if status == RaceStatus.LOBBY:
        return Phase.LOBBY
    if status == RaceStatus.FINISHED:
        return Phase.FINISHED
    if status == RaceStatus.CANCELLED:
        return Phase.CANCELLED
    assert starts_at_ms is not None and ends_at_ms is not None
    if now_ms < starts_at_ms:
        return Phase.COUNTDOWN
    if now_ms < ends_at_ms:
        return Phase.RUNNING
    return Phase.OVERTIME


def check_time_limit(seconds: int | None) -> None:
    if seconds is not None and not MIN_TIME_LIMIT_S <= seconds <= MAX_TIME_LIMIT_S:
        raise RaceRuleError(
            "bad_time_limit",
            f"the time limit must be between {MIN_TIME_LIMIT_S} and {MAX_TIME_LIMIT_S} seconds",
        )


def check_max_players(count: int) -> None:
    if not 1 <= count <= MAX_PLAYERS:
        raise RaceRuleError("bad_max_players", f"a race holds 1 to {MAX_PLAYERS} players")


def plan_start(now_ms: int, time_limit_s: int | None) -> tuple[int, int]:
    """(starts_at_ms, ends_at_ms) for a race that starts now."""
    starts_at = now_ms + COUNTDOWN_MS
    return starts_at, starts_at + 1000 * (time_limit_s or NO_LIMIT_CAP_S)


def check_join(current: Phase, racers: int, max_players: int) -> None:
    """May someone new join? (Someone already in is simply let back in by the caller.)"""
    if current != Phase.LOBBY:
        raise RaceRuleError("race_started", "the race has already started")
    check_room(racers, max_players)


def check_late_join(current: Phase, racers: int, max_players: int) -> None:
    """May an event that places racers (an arena) put someone new in a race that has started?
    Only in its countdown, with room: nobody has moved yet, so the newcomer plays the same deal
    from the same start as everyone else."""
    if current != Phase.COUNTDOWN:
        raise RaceRuleError("race_started", "the race is under way")
    check_room(racers, max_players)


def check_room(racers: int, max_players: int) -> None:
    """Room for one more, or `race_full` with how many the race holds: "8 players", and for a
    race of one (the API allows it) "a solo race"."""
    if racers >= max_players:
        holds = "a solo race" if max_players == 1 else f"{max_players} players"
        raise RaceRuleError("race_full", f"the race is full ({holds})")


QUICK_STARTS_ITSELF = "a quick race starts by itself"


def check_lobby_action(current: Phase, is_racer: bool) -> None:
    """Ready toggles and leaving the lobby: racers only, lobby only."""
    if not is_racer:
        raise RaceRuleError("not_in_race", "you are not in this race")
    if current != Phase.LOBBY:
        raise RaceRuleError("race_started", "the race has already started")


def check_ready(current: Phase, is_racer: bool, quick: bool) -> None:
    """Ready toggles are lobby actions, and no quick race takes one: it starts by itself when
    its lobby time is up, and its racers all ready must not start it before then, shutting out
    the players still to be matched into it."""
    if quick:
        raise RaceRuleError("quick_race", QUICK_STARTS_ITSELF)
    check_lobby_action(current, is_racer)


def check_start(current: Phase, is_host: bool, racers: int, quick: bool = False) -> None:
    """The host may start at any time in the lobby, even alone (a solo race); a quick race
    starts by itself."""
    if quick:
        raise RaceRuleError("quick_race", QUICK_STARTS_ITSELF)
    if not is_host:
        raise RaceRuleError("not_host", "only the host can start the race")
    if current != Phase.LOBBY:
        raise RaceRuleError("race_started", "the race has already started")
    if racers < 1:
        raise RaceRuleError("no_players", "nobody is in the race")


def should_autostart(ready: list[bool]) -> bool:
    """Everyone ready, and at least two of them, starts the race without the host."""
    return len(ready) >= MIN_PLAYERS_TO_AUTOSTART and all(ready)


def autostart_after(
    racers: int, max_players: int, now_ms: int, current_ms: int | None, lobby_ms: int
) -> int | None:
    """When a quick race's lobby ends (epoch ms), after its racers changed: `lobby_ms` after
    its second player arrived, at once when it is full, never with fewer than two."""
    if racers < MIN_PLAYERS_TO_AUTOSTART:
        return None
    if racers >= max_players:
        return now_ms if current_ms is None else min(current_ms, now_ms)
    return now_ms + lobby_ms if current_ms is None else current_ms


def check_play(current: Phase, racer: RacerStatus | None) -> None:
    """May this racer play (move, undo, resign) now? Refusals say why."""
    if racer is None:
        raise RaceRuleError("not_in_race", "you are not racing in this race")
    if current in (Phase.LOBBY, Phase.COUNTDOWN):
        raise RaceRuleError("not_started", "the race has not started yet")
    if current in (Phase.OVERTIME, Phase.FINISHED, Phase.CANCELLED):
        raise RaceRuleError("race_over", "the race is over")
    if racer in DONE:
        raise RaceRuleError("already_finished", "you have already finished this race")


def check_resign(current: Phase, racer: RacerStatus | None) -> None:
    """May this racer resign now? Whenever they may move, and in the countdown too, checked as
    in the running race: a racer who gives up before the start (an arena's Leave, the Resign
    button) does not hold the race open until its time limit."""
    check_play(Phase.RUNNING if current is Phase.COUNTDOWN else current, racer)


def racer_status_after(won: bool, stuck: bool) -> RacerStatus:
    """A racer's status after a move or undo (a stuck racer may still undo or resign)."""
    if won:
        return RacerStatus.WON
    return RacerStatus.STUCK if stuck else RacerStatus.PLAYING


def is_complete(statuses: list[RacerStatus]) -> bool:
    """The race is over once every racer has won or resigned."""
    return bool(statuses) and all(s in DONE for s in statuses)


def status_at_close(status: RacerStatus) -> RacerStatus:
    """A racer still playing (or stuck) when the race closes ran out of time."""
    return status if status in DONE else RacerStatus.OUT_OF_TIME
