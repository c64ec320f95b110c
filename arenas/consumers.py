"""/ws/arena/<id>/: an arena's page, live (docs/protocol.md, "Arenas").

On connect the socket gets the `standings` at once, then again whenever they changed, at most
once a second (arenas/rooms.py); a player who joined the arena is present while the socket is
open (only present players are placed), and gets `placed` with their race's URL when they are
placed. The client sends only `ping`, and `sync` (the standings again now). Every refusal is an
`error` frame that leaves the socket open.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from arenas import actions
from arenas.models import Arena
from arenas.rooms import ROOMS, with_own
from games.identity import player_from_scope
from games.models import Player
from games.rows import one_or_none
from games.sockets import (
    PING,
    FrameBudget,
    Ping,
    PlaySocket,
    Verdict,
    error_frame,
    parse,
    pong_frame,
)
from games.storage import off_loop

CLOSE_NOT_FOUND = 4004


@dataclass(frozen=True)
class Sync:
    pass


MESSAGES = {"sync": (Sync, {}), "ping": PING}
"""/ws/arena/<id>/'s messages."""


@dataclass(frozen=True)
class Connection:
    arena: Arena | None
    player: Player | None
    present: bool


def connect(public_id: str, scope) -> Connection:
    """The arena, the socket's player, and whether they are in it (then marked present)."""
    arena = one_or_none(Arena.objects.filter(public_id=public_id))
    player = player_from_scope(scope) if arena else None
    present = player is not None and actions.do_present(arena, player, True)
    return Connection(arena=arena, player=player, present=present)


class ArenaConsumer(PlaySocket):
    path_name = "/ws/arena/"
    stamps_now = True
    # In no group itself: its room is, and hands it what is its (arenas/rooms.py).

    async def connect(self) -> None:
        self.setup_socket(FrameBudget())
        self.arena: Arena | None = None
        self.player = None
        self.present = False
        self.room = None
        self.opened_at = timezone.now()
        self.placed_url: str | None = None
        await self.accept()
        view = await off_loop(connect)(self.scope["url_route"]["kwargs"]["arena_id"], self.scope)
        if view.arena is None:
            await self.send_frame(error_frame("not_found", "there is no arena with this link"))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.arena, self.player, self.present = view.arena, view.player, view.present
        self.room = await ROOMS.get().join(self.arena, self)
        if self.present:
            self.room.dirty = True  # the lobby's counts changed for everyone
        await self.send_own_board()

    async def disconnect(self, code: int) -> None:
        if self.arena is None:
            return
        if self.room is not None:  # None: the join failed (Redis unreachable a moment)
            ROOMS.get().leave(self.room, self)
        if self.present:
            await off_loop(actions.do_present)(self.arena, self.player, False)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.arena is None:
            return
        verdict = self.budget.charge()
        if verdict is not Verdict.OK:
            await self.over_budget(verdict)
            return
        try:
            message = parse(text_data, bytes_data, MESSAGES)
            if isinstance(message, Ping):
                await self.send_frame(pong_frame(message.t))
            else:
                await self.send_own_board()
        except Exception as exc:
            await self.refuse(exc, None)

    async def send_own_board(self) -> None:
        ids = [self.player.pk] if self.player is not None else []
        shared, own = await self.room.texts(ids)
        await self.send(text_data=with_own(shared, own.get(ids[0]) if ids else None))

    async def send_placed(self, url: str) -> None:
        """Send the player to their race (once: the message and the room's check may both
        bring it)."""
        if url != self.placed_url:
            self.placed_url = url
            await self.send_frame({"type": "placed", "url": url})
