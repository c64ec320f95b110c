"""Who plays (Player), what they play (Game) and every step they took (Move).

The Move log is the record: replaying it from new_game(variant, seed) gives the position,
undo history included. Game.state is a snapshot of the engine's full state, kept so pages and
admins can look at a game without replaying it; Game.seq counts the log's rows.
"""

import re
import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

MAX_SEED = 2**63 - 1
INT64_MAX = 2**63 - 1
"""The largest whole number a column holds (PostgreSQL's bigint, SQLite's INTEGER)."""
NICKNAME_MAX_LENGTH = 24

nickname_validator = RegexValidator(
    r"^[\w][\w .'\-]*$",
    "A nickname is letters, digits, spaces and . ' - _, starting with a letter or digit.",
)


def new_public_id() -> str:
    """A short random id for URLs and frames: 12 URL-safe characters (72 random bits)."""
    return secrets.token_urlsafe(9)


PUBLIC_ID = re.compile(r"[-A-Za-z0-9_]{1,16}")


def is_public_id(value: str) -> bool:
    """Whether `value` could be a public id, and so is worth a look-up: URL-safe characters, as
    many as the column holds. Anything else (a NUL, which PostgreSQL's text cannot hold; a lone
    surrogate, which no driver can encode) is no id of anything."""
    return PUBLIC_ID.fullmatch(value) is not None


GUEST_PREFIX = "Guest-"
"""A guest's name until they choose one: the prefix and four digits, shared by chance. Only
guests' default names begin with it (a chosen one may not: `is_guest_name`), and they alone
may be the same as another's."""


def default_guest_nickname() -> str:
    return f"{GUEST_PREFIX}{secrets.randbelow(10_000):04d}"


def is_guest_name(nickname: str) -> bool:
    """Whether a name begins as guests' default names do (in any case): not a name to choose."""
    return nickname.casefold().startswith(GUEST_PREFIX.casefold())


NICKNAME_TAKEN = "Another player has this nickname: choose another."


class Variant(models.TextChoices):
    PENELOPES_WEB = "penelopes-web", "Penelope's Web"
    EIGHTY_THIEVES = "eighty-thieves", "Eighty Thieves"
    PENGUIN = "penguin", "Penguin"
    SPIDERWEB = "spiderweb", "Spiderweb"
    QUEENIE = "queenie", "Queenie"


class Player(models.Model):
    """Who plays: a guest (no user, id kept in the session) or an account's player. A chosen
    nickname is the player's alone, whatever its case: two players on a board or in a race are
    never shown under one name (guests' default names aside, `GUEST_PREFIX`)."""

    nickname = models.CharField(
        max_length=NICKNAME_MAX_LENGTH,
        default=default_guest_nickname,
        validators=[nickname_validator],
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                Lower("nickname"),
                name="nickname_unique_but_guests",
                condition=~Q(nickname__startswith=GUEST_PREFIX),
                violation_error_message=NICKNAME_TAKEN,
            )
        ]

    def __str__(self) -> str:
        return self.nickname

    @property
    def is_guest(self) -> bool:
        return self.user_id is None


class Game(models.Model):
    """One player's play of one deal: a practice game, a race entry or a daily attempt."""

    class Kind(models.TextChoices):
        PRACTICE = "practice", "Practice"
        RACE = "race", "Race"
        DAILY = "daily", "Daily challenge"

    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        WON = "won", "Won"
        STUCK = "stuck", "Stuck"
        RESIGNED = "resigned", "Resigned"

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="games")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    seed = models.BigIntegerField(validators=[MinValueValidator(0), MaxValueValidator(MAX_SEED)])
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PRACTICE)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    move_count = models.PositiveIntegerField(
        default=0, help_text="Moves in effect in the current position (undone moves excluded)."
    )
    seq = models.PositiveIntegerField(
        default=0, help_text="Rows in the move log (moves and undos); the last Move's seq."
    )
    state = models.JSONField(default=dict, blank=True, help_text="The engine's full to_dict().")
    start_state = models.JSONField(
        null=True,
        blank=True,
        help_text="A position to start from instead of the deal (puzzles, tests); null: the deal.",
    )

    class Meta:
        ordering = ["-started_at"]
        indexes = [
            models.Index(fields=["player", "variant", "seed", "kind", "status"]),
            # A player's latest games (the player page) without sorting all of them.
            models.Index(fields=["player", "-started_at"], name="game_player_latest"),
            # A player's record per game (games, wins, fastest) read from the index alone: a
            # player of thousands of games costs an index range, not a heap page per game.
            models.Index(
                fields=["player", "variant", "status"],
                include=["id", "started_at", "finished_at"],
                name="game_player_record",
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.get_variant_display()} #{self.seed} ({self.get_kind_display()}, {self.player})"
        )

    @property
    def is_over(self) -> bool:
        """Won or resigned: no move, undo or autoplay is taken any more."""
        return self.status in GAME_OVER


# The statuses of a game that is over (Game.is_over), for code that reads the status alone.
GAME_OVER = frozenset({Game.Status.WON, Game.Status.RESIGNED})


class Move(models.Model):
    """One row of a game's log: a move in contract notation, or "undo"."""

    UNDO = "undo"

    # No index of its own: the unique (game, seq) index serves every lookup by game, and one
    # index fewer is one write fewer on every move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    move = models.CharField(max_length=16)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_move_seq_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.seq}. {self.move}"


class WinnableDeal(models.Model):
    """A deal the solver proved winnable, kept until it is dealt (games/winnable.py), so that
    "a winnable deal" is dealt at once instead of after seconds of search.

    Practice deals are dealt to whoever asks next (a practice deal's number is in its address
    anyway); race deals are secret until their race is over, so they are found apart, never
    taken from the practice pool, and never shown. Each row is dealt once and then deleted.
    """

    class Use(models.TextChoices):
        PRACTICE = "practice", "Practice"
        RACE = "race", "Race"

    variant = models.CharField(max_length=16, choices=Variant.choices)
    use = models.CharField(max_length=8, choices=Use.choices)
    seed = models.BigIntegerField(validators=[MinValueValidator(0), MaxValueValidator(MAX_SEED)])
    found_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["variant", "use", "seed"], name="unique_winnable_deal_per_use"
            ),
        ]
        indexes = [models.Index(fields=["variant", "use", "id"])]

    def __str__(self) -> str:
        return f"{self.get_variant_display()} ({self.get_use_display()})"
