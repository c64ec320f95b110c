"""A race (one deal, one clock, up to eight racers), its racers, and its numbered event log.

Each racer plays their own `games.Game` (kind "race") on the race's deal, so the move log,
replays and the admin come from the games app. The race keeps what is about the race: who is
in, the clock (`starts_at`, `ends_at`), each racer's progress, and `RaceEvent` rows: every
event sent to the race's sockets, numbered, so a client that missed some asks for them again
and the results chart is drawn from the record, not from memory.
"""

from django.db import models
from django.urls import reverse

from games.models import MAX_SEED, Variant, new_public_id
from races.lifecycle import MAX_PLAYERS, RacerStatus, RaceStatus


class Race(models.Model):
    class Status(models.TextChoices):
        LOBBY = RaceStatus.LOBBY, "In the lobby"
        STARTED = RaceStatus.STARTED, "Started"
        FINISHED = RaceStatus.FINISHED, "Finished"
        CANCELLED = RaceStatus.CANCELLED, "Cancelled"

    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public (listed on /races/)"
        LINK = "link", "Only by link or code"

    code = models.CharField(max_length=6, unique=True, help_text="The short code to type.")
    host = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="hosted_races")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    seed = models.BigIntegerField(help_text="Secret until the race is over.")
    seed_chosen = models.BooleanField(
        default=False, help_text="The host picked the seed: the race is unranked."
    )
    winnable = models.BooleanField(default=False, help_text="The solver found a win for the deal.")
    wants_winnable = models.BooleanField(
        default=False,
        help_text="Set up with a winnable deal: one from the race pool at the start if the pool "
        "was empty when it opened (else its random deal).",
    )
    max_players = models.PositiveSmallIntegerField(default=MAX_PLAYERS)
    time_limit_s = models.PositiveIntegerField(null=True, blank=True)
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.LINK)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    created_at = models.DateTimeField(auto_now_add=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(
        null=True, blank=True, help_text="The time limit, or the cap for races without one."
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    event_seq = models.PositiveIntegerField(default=0, help_text="The last event's number.")
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    quick = models.BooleanField(
        default=False, help_text="A quick race: filled by the Quick race button, starts by itself."
    )
    rated = models.BooleanField(
        default=False, help_text="Its result changes its signed-in racers' ratings."
    )
    autostart_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A quick race's lobby ends then (set when its second player arrives).",
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["visibility", "status", "created_at"]),
            models.Index(fields=["quick", "status", "variant"]),
            # The latest finished races (the races board, /races/), of all games or of one.
            models.Index(
                fields=["visibility", "status", "-finished_at", "-id"], name="race_latest_finished"
            ),
            models.Index(
                fields=["visibility", "status", "variant", "-finished_at", "-id"],
                name="race_latest_finished_variant",
            ),
            # The races still on (who races now: an arena's lobby count and placement), without
            # reading every race ever run.
            models.Index(
                fields=["id"],
                condition=models.Q(status__in=[RaceStatus.LOBBY, RaceStatus.STARTED]),
                name="race_on",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seed__gte=0) & models.Q(seed__lte=MAX_SEED),
                name="race_seed_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"Race {self.code} ({self.get_variant_display()}, {self.get_status_display()})"

    def get_absolute_url(self) -> str:
        return reverse("races:race", args=[self.code])

    @property
    def ranked(self) -> bool:
        return not self.seed_chosen

    @property
    def is_over(self) -> bool:
        return self.status in RACE_OVER

    @property
    def group_name(self) -> str:
        """The channel group of every socket on this race (racers and spectators)."""
        return race_group(self.code)


def race_group(code: str) -> str:
    """The channel group of the race with this code (known before its row is read)."""
    return f"race.{code}"


# The statuses of a race that is over (Race.is_over), for code that reads the status alone.
RACE_OVER = frozenset({Race.Status.FINISHED, Race.Status.CANCELLED})


class _NoWayBack(models.OneToOneRel):
    """The game's end of `Racer.game`: it never keeps the racer it has found."""

    def set_cached_value(self, instance, value) -> None:
        pass


class RacerGameField(models.OneToOneField):
    """`Racer.game`: a one-to-one whose game does not remember its racer. Asking a game for
    `game.racer` reads the racer from the database each time.

    Django caches both ends of a one-to-one whenever either is read, so a racer read with
    `select_related("game")` and its game held each other, with the game's state parsed from its
    JSON, and only the cyclic garbage collector could free them: some 31 objects a racer. Every
    race socket's snapshot, every resignation and every close reads its race's racers this way,
    and in a crowd of 1,000 the collector paused each server process for 60-190 ms every few
    seconds to free them (docs/performance.md, "Where the time goes"). Nothing reads a racer
    through its game more than once, and nothing selects `racer` from a game."""

    rel_class = _NoWayBack

    def deconstruct(self):
        # The column and the constraint are a plain one-to-one's: migrations see one.
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.OneToOneField", args, kwargs


class Racer(models.Model):
    """One player in one race, with their progress (the leaderboard is built from these)."""

    class Status(models.TextChoices):
        WAITING = RacerStatus.WAITING, "Waiting"
        PLAYING = RacerStatus.PLAYING, "Playing"
        STUCK = RacerStatus.STUCK, "Stuck"
        WON = RacerStatus.WON, "Finished"
        RESIGNED = RacerStatus.RESIGNED, "Resigned"
        OUT_OF_TIME = RacerStatus.OUT_OF_TIME, "Out of time"

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="racers")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="racers")
    name = models.CharField(max_length=24, help_text="The nickname shown in this race.")
    game = RacerGameField(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="racer"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    ready = models.BooleanField(default=False)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.WAITING)
    cards = models.PositiveSmallIntegerField(default=0, help_text="Cards on foundations now.")
    cards_at_ms = models.PositiveIntegerField(
        default=0, help_text="When the current count was reached, ms from the start."
    )
    moves = models.PositiveIntegerField(default=0)
    finish_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="The winning time: from the start to the winning move."
    )
    done_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="When the racer won, resigned or ran out of time."
    )
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Final place.")
    curve = models.JSONField(
        default=list,
        blank=True,
        help_text="[ms from the start, cards] each time the cards home changed, for the chart.",
    )
    seen_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last seen on the race's page while still racing (its server says so every few "
        "seconds, races/presence.py): the server resigns a racer whose page is gone.",
    )

    class ResignedFor(models.TextChoices):
        """Why the server resigned a racer (races/holdups.py)."""

        LEFT = "left", "Left the race"
        """No page of theirs was open for RACER_GONE_AFTER_S while nobody else still played."""
        IDLE = "idle", "Resigned: idle"
        """Still racing while someone else was done, none of those still racing made a move for
        RACE_IDLE_AFTER_S."""

    resigned_for = models.CharField(
        max_length=4,
        blank=True,
        default="",
        choices=ResignedFor.choices,
        help_text="Why the server resigned the racer, if it did: they had left the race, or were "
        "idle in it while others waited.",
    )

    class Meta:
        ordering = ["joined_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="one_racer_per_player"),
        ]
        # A player's latest races (the player page) without sorting all of them.
        indexes = [models.Index(fields=["player", "-joined_at"], name="racer_player_latest")]

    def __str__(self) -> str:
        return f"{self.name} in {self.race.code}"


class RaceEvent(models.Model):
    """One numbered event of a race, exactly as it was sent to the race's sockets."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=16)
    data = models.JSONField()
    at = models.DateTimeField()

    class Meta:
        ordering = ["race", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["race", "seq"], name="unique_event_seq_per_race"),
        ]

    def __str__(self) -> str:
        return f"{self.race.code} #{self.seq} {self.kind}"


class QuickLobby(models.Model):
    """One row per variant, locked while a player is placed in that variant's quick races: the
    placement is one transaction on the database, whatever process serves the player."""

    variant = models.CharField(max_length=16, choices=Variant.choices, primary_key=True)

    def __str__(self) -> str:
        return f"Quick lobby of {self.variant}"


class Rating(models.Model):
    """A signed-in player's race rating in one variant (openskill's mu and sigma)."""

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    races = models.PositiveIntegerField(default=0, help_text="Rated races played.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["variant", "-mu"]
        indexes = [models.Index(fields=["variant", "races", "mu"])]
        constraints = [
            models.UniqueConstraint(fields=["player", "variant"], name="one_rating_per_variant"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.variant} {self.mu:.0f}"


class RatingChange(models.Model):
    """What one rated race did to one racer's rating: the history the player page charts, and
    the guard that applies a race's result once (one row per race and player)."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(
        "games.Player", on_delete=models.CASCADE, related_name="rating_changes"
    )
    variant = models.CharField(max_length=16, choices=Variant.choices)
    mu_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    races = models.PositiveIntegerField(help_text="Rated races played, this one included.")
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["player", "variant", "at"])]
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="one_rating_change_per_race"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.mu_before:.0f} -> {self.mu_after:.0f} in {self.race.code}"
