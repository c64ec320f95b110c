"""Who the player is: an account's Player, or a guest's Player whose id the session keeps.

A guest gets a Player on first need (a page that plays). Signing up attaches the new user to
the guest's Player, so nothing played as a guest is lost. Logging in to an existing account
moves the guest's games (and anything else that points at the guest Player) to the account's
Player; that happens in the user_logged_in receiver below, so every login path merges.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.contrib.auth.signals import user_logged_in
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.dispatch import receiver
from django.http import HttpRequest

from games.models import GUEST_PREFIX, NICKNAME_MAX_LENGTH, NICKNAME_TAKEN, Player, is_guest_name
from games.rows import one_or_none

logger = logging.getLogger(__name__)

SESSION_PLAYER_KEY = "player_id"


def player_for_user(user) -> Player:
    """The account's Player, created (nicknamed after the username, `free_nickname`, worked out
    only then) the first time it is needed."""
    player, _ = Player.objects.get_or_create(
        user=user, defaults={"nickname": lambda: free_nickname(user.get_username())}
    )
    return player


GUESTS_OWN = f"Names beginning “{GUEST_PREFIX}” are guests' default names: choose one of your own."


def check_name_free(name: str, player: Player | None) -> None:
    """Refuse (`ValidationError`, code "taken" or "guest_name") a name for `player` (None: a
    visitor) to go by that another player has, in any case, or that is a guest's kind (one
    whose name is still a guest's may take another). Their own name they keep."""
    if player is not None and name == player.nickname:
        return
    if is_guest_name(name):
        if player is None or is_guest_name(player.nickname):
            return
        raise ValidationError(GUESTS_OWN, code="guest_name")
    if taken_by_another(name, player):
        raise ValidationError(NICKNAME_TAKEN, code="taken")


def taken_by_another(name: str, player: Player | None) -> bool:
    """Whether a player other than `player` goes by `name`, in any case."""
    others = Player.objects.exclude(pk=player.pk) if player else Player.objects
    return others.filter(nickname__iexact=name).exists()


def free_nickname(wanted: str, player: Player | None = None) -> str:
    """A nickname after `wanted` that no other player has (chosen names are each player's own):
    `wanted` itself, else with a number ("Ann 2"), cut to fit. For an account whose name was not
    checked against the players' (made by an admin, or `createsuperuser`); the sign-up form
    refuses a taken one instead."""
    if is_guest_name(wanted):
        wanted = wanted[len(GUEST_PREFIX) :] or "Player"
    name, number = wanted[:NICKNAME_MAX_LENGTH], 1
    while taken_by_another(name, player):
        number += 1
        suffix = f" {number}"
        name = wanted[: NICKNAME_MAX_LENGTH - len(suffix)].rstrip() + suffix
    return name


def guest_player(session) -> Player | None:
    """The guest Player whose id the session keeps, if it still is a guest."""
    player_id = session.get(SESSION_PLAYER_KEY)
    if player_id is None:
        return None
    return one_or_none(Player.objects.filter(pk=player_id, user__isnull=True))


def current_player(request: HttpRequest, create: bool = True) -> Player | None:
    """The player behind an HTTP request; a new guest (kept in the session) when create is set.

    Read once a request (a page's view and its template's context both ask), kept on the request
    for as long as who is asking stays the same: the same account, the same guest in the
    session (a login or logout in the request reads it again)."""
    found = getattr(request, "_current_player", None)
    if found is not None and found[0] == _asker(request):
        return found[1]
    if request.user.is_authenticated:
        player = player_for_user(request.user)
    else:
        player = guest_player(request.session)
        if player is None and create:
            player = Player.objects.create()
            request.session[SESSION_PLAYER_KEY] = player.pk
    if player is not None:
        request._current_player = (_asker(request), player)
    return player


@contextmanager
def acting_player(request: HttpRequest) -> Iterator[Player]:
    """The player for an action that may be refused (a form's POST, a join, a start). A visitor
    is made a guest for it, kept (in the session) only if the block ends without an exception:
    a refused action deletes the guest again, with anything it wrote for them, so bad input
    changes nothing. The action runs in its own transactions as it would for a known player."""
    player = current_player(request, create=False)
    if player is not None:
        yield player
        return
    guest = Player.objects.create()
    try:
        yield guest
    except BaseException:
        Player.objects.filter(pk=guest.pk).delete()
        raise
    request.session[SESSION_PLAYER_KEY] = guest.pk
    request._current_player = (_asker(request), guest)


def _asker(request: HttpRequest) -> tuple:
    user = request.user
    return (user.pk if user.is_authenticated else None, request.session.get(SESSION_PLAYER_KEY))


def player_from_scope(scope, known: Iterable[Player] = ()) -> Player | None:
    """The player behind a websocket (AuthMiddlewareStack's session and user); never creates a guest.
    `known`: players just read with something else (a race's racers); the session's guest is
    taken from among them, still a guest, rather than read again.

    Sync: call it through database_sync_to_async. A socket without a player owns no game.
    """
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return player_for_user(user)
    session = scope.get("session")
    if session is None:
        return None
    player_id = session.get(SESSION_PLAYER_KEY)
    found = next((p for p in known if p.pk == player_id and p.user_id is None), None)
    return found if found is not None else guest_player(session)


TICKET_MAX_AGE_S = 60
"""How long a socket ticket (`socket_ticket`) is good for: a page sends it as soon as it
has it."""


def socket_ticket(player: Player, where: str) -> str:
    """A signed word naming the player, for a socket at `where` (a path) that a page already has
    open: a button's answer hands it to the page, which sends it over that socket to make it the
    player's, where a socket opened again would be (its player comes from the session, which the
    button may just have made: a visitor's first press makes them a guest)."""
    return signing.dumps(player.pk, salt=f"socket-ticket:{where}")


def ticket_player_id(ticket: str, where: str) -> int | None:
    """The player a `socket_ticket` for `where` names; None for a forged, altered, expired or
    another socket's ticket."""
    try:
        found = signing.loads(ticket, salt=f"socket-ticket:{where}", max_age=TICKET_MAX_AGE_S)
    except (signing.BadSignature, UnicodeError):  # SignatureExpired is one; a lone surrogate
        return None
    return found if isinstance(found, int) else None


def attach_user(player: Player, user) -> Player:
    """Make a guest Player the account's player (sign-up): same row, same games."""
    player.user = user
    if is_guest_name(player.nickname):
        player.nickname = free_nickname(user.get_username(), player)
    player.save(update_fields=["user", "nickname"])
    return player


def merge_players(source: Player, target: Player) -> None:
    """Move everything that points at ``source`` to ``target``, then delete ``source``.

    Every foreign key to Player in every app moves (games today; race entries, daily attempts
    later), one relation at a time (many-to-many fields are not followed: give them a through
    model with a foreign key). Rows that cannot move because of a unique constraint (the
    account already has its own entry there) stay with the guest, and the guest row is then kept.
    """
    if source.pk == target.pk:
        return
    stayed = False
    with transaction.atomic():
        for relation in Player._meta.related_objects:
            if not relation.one_to_many:
                continue
            field = relation.field
            manager = relation.related_model._base_manager
            try:
                with transaction.atomic():
                    manager.filter(**{field.name: source}).update(**{field.name: target})
            except IntegrityError:
                stayed = True
                logger.warning(
                    "merge of player %s into %s left %s rows behind",
                    source.pk,
                    target.pk,
                    relation.related_model.__name__,
                )
        if not stayed:
            source.delete()


@receiver(user_logged_in, dispatch_uid="games.identity.merge_guest_on_login")
def merge_guest_on_login(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """A guest who logs in keeps their games: the guest Player joins the account's."""
    if request is None or not hasattr(request, "session"):
        return
    guest = guest_player(request.session)
    if guest is None:
        player_for_user(user)
        return
    account = one_or_none(Player.objects.filter(user=user))
    if account is None:
        attach_user(guest, user)
    else:
        merge_players(guest, account)
    request.session[SESSION_PLAYER_KEY] = (account or guest).pk
