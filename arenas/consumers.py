"""/ws/arena/<id>/: an arena's page, live (docs/protocol.md, "Arenas").

On connect the socket gets the `standings` at once, then again whenever they changed, at most
once a second (arenas/rooms.py), and `edited` when an admin changes the arena in place; a
player who joined the arena is present while the socket is open (only present players are
placed), and gets `placed` with their race's URL when they are placed (a race's page waits for its racer's next race on the race's own socket instead: the same
`Watch` in the same room, arenas/rooms.py). The client sends `ping`, `sync` (the standings
again now), and `player` with the ticket a button's answer gave the page (the socket is then
the player's, present if they are in the arena: no second socket after a Join). Every refusal
is an `error` frame that leaves the socket open.
"""

from __future__ import annotations

from dataclasses import dataclass

from arenas import actions
from arenas.models import Arena
from arenas.rooms import Watch, own_texts
from games.identity import player_from_scope, ticket_player_id
from games.models import Player, is_public_id
from games.rows import one_or_none
from games.sockets import (
    PING,
    BadFrame,
    Field,
    FrameBudget,
    Ping,
    PlaySocket,
    Verdict,
    error_frame,
    message_types,
    parse,
    pong_frame,
)
from games.storage import off_loop

CLOSE_NOT_FOUND = 4004


@dataclass(frozen=True)
class Sync:
    pass


@dataclass(frozen=True)
class AsPlayer:
    ticket: str


TICKET = Field("text", limit=200)
MESSAGES = {"sync": (Sync, {}), "ping": PING, "player": (AsPlayer, {"ticket": TICKET})}
"""/ws/arena/<id>/'s messages."""
TYPES = message_types(MESSAGES)


@dataclass(frozen=True)
class Connection:
    arena: Arena | None
    player: Player | None
    present: bool
    own: dict[int, str]


def connect(public_id: str, scope) -> Connection:
    """The arena, the socket's player, whether they are in it (then marked present), and their
    own row of its board (none for a visitor): one trip off the loop."""
    arena = (
        one_or_none(Arena.objects.filter(public_id=public_id)) if is_public_id(public_id) else None
    )
    return joined_as(arena, player_from_scope(scope) if arena else None)


def connect_as(arena: Arena, player_id: int, was: Player | None, was_present: bool) -> Connection:
    """As `connect`, for a socket already open that a ticket makes the player's, in one trip off
    the loop: the player, marked present if they are in the arena (the socket's player before,
    if another and present, no longer), and their own row of its board; no arena if it has
    been removed since the socket opened."""
    if was_present and was is not None and was.pk != player_id:
        actions.do_present(arena, was, False)
    view = joined_as(arena, one_or_none(Player.objects.filter(pk=player_id)))
    if not view.present and actions.is_gone(arena):  # removed since the socket opened
        return Connection(arena=None, player=None, present=False, own={})
    return view


def joined_as(arena: Arena | None, player: Player | None) -> Connection:
    """The socket as `player`'s: marked present if they are in the arena, with their own row of
    its board (a visitor's: neither)."""
    present = player is not None and actions.do_present(arena, player, True)
    own = own_texts(arena, [player.pk]) if present else {}  # a spectator has no row
    return Connection(arena=arena, player=player, present=present, own=own)


class ArenaConsumer(PlaySocket):
    path_name = "/ws/arena/"
    stamps_now = True
    # In no group itself: its room is, and hands its watch what is its (arenas/rooms.py).

    async def connect(self) -> None:
        self.setup_socket(FrameBudget())
        self.watch: Watch | None = None
        await self.accept()
        view = await off_loop(connect)(self.scope["url_route"]["kwargs"]["arena_id"], self.scope)
        if view.arena is None:
            await self.not_found(None)
            return
        self.watch = Watch(view.arena, view.player, self)
        await self.watch.open(view.present, view.own)

    async def not_found(self, ref: str | None) -> None:
        """No such arena (or no longer, when a `ref` frame came): said, then the socket is
        closed."""
        await self.send_frame(error_frame("not_found", actions.NO_ARENA, ref))
        await self.close(code=CLOSE_NOT_FOUND)

    async def disconnect(self, code: int) -> None:
        if self.watch is not None:
            await self.watch.close()

    async def placed(self, url: str) -> None:
        """The player was placed: the page goes to the race."""
        await self.send_frame({"type": "placed", "url": url})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.watch is None:
            return
        verdict = self.budget.charge()
        if verdict is not Verdict.OK:
            await self.over_budget(verdict)
            return
        ref = None
        try:
            message = parse(text_data, bytes_data, MESSAGES)
            ref = TYPES[type(message)]
            if isinstance(message, Ping):
                await self.send_frame(pong_frame(message.t))
            elif isinstance(message, AsPlayer):
                await self.as_player(message.ticket)
            else:
                await self.watch.send_own_board()
        except Exception as exc:  # a refusal, or anything unexpected: an error frame
            await self.refuse(exc, ref)

    async def as_player(self, ticket: str) -> None:
        """`player`: the socket the ticket's player's (a button's answer: a visitor who joined,
        a player back after leaving); a socket already theirs and present is sent the board
        again, with nothing written."""
        watch = self.watch
        player_id = ticket_player_id(ticket, watch.arena.socket_path)
        if player_id is None:
            raise BadFrame(
                "bad_ticket", "the ticket is not this arena's or has expired: open the socket again"
            )
        if watch.present and watch.player is not None and watch.player.pk == player_id:
            await watch.send_own_board()
            return
        view = await off_loop(connect_as)(watch.arena, player_id, watch.player, watch.present)
        if view.arena is None:
            await self.not_found("player")
            return
        await watch.become(view.player, view.present, view.own)
