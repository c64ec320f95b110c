"""Arenas: timed events in which every player who is free is placed in the next race of the
arena, again and again, for points (docs/arenas.md).

An `Arena` is a game, a start and an end; `ArenaPlayer` is one player in it (their presence,
their pause, and their totals, which the live board in the rank store is built from);
`ArenaRace` tags a race (a rated race of the races app) with its arena; `ArenaResult` is the
record: each race's place and points for each of its racers. The totals and the board can
always be recomputed from the results.
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse
from django.utils import timezone

from games.models import Variant, new_public_id
from games.rows import one_or_none


class ArenaSchedule(models.Model):
    """A standing schedule: an arena of a game every `every_minutes`, each `length_minutes`
    long (`manage.py run_arenas` makes them ahead; edited in the admin)."""

    variant = models.CharField(max_length=16, choices=Variant.choices)
    every_minutes = models.PositiveIntegerField(default=60)
    offset_minutes = models.PositiveIntegerField(
        default=0, help_text="Minutes after the hour (of the day, UTC) the first one starts."
    )
    length_minutes = models.PositiveIntegerField(default=30)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["variant", "offset_minutes"]

    def __str__(self) -> str:
        return f"{self.get_variant_display()} every {self.every_minutes} min"


class StandardScheduleMade(models.Model):
    """That the standard schedule was made in this database, and when (one row at most): the
    scheduler makes it once, so the rows an admin deleted or deactivated stay so
    (arenas/schedule.py `make_standard_schedule`)."""

    made_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"standard schedule made {self.made_at:%Y-%m-%d %H:%M}"


class ArenaQuerySet(models.QuerySet):
    """The arenas' lists (the list page, the API, the home page): by their phase at `now`."""

    def listed(self) -> ArenaQuerySet:
        """The public arenas: those only reachable by their link are listed nowhere."""
        return self.filter(visibility=Arena.Visibility.PUBLIC)

    def running(self, now) -> ArenaQuerySet:
        return self.filter(starts_at__lte=now, ends_at__gt=now)

    def upcoming(self, now) -> ArenaQuerySet:
        return self.filter(starts_at__gt=now)

    def ended(self, now) -> ArenaQuerySet:
        """The latest ended first."""
        return self.filter(ends_at__lte=now).order_by("-ends_at")

    def by_phase(self, now, size: int = 20) -> dict[str, list[Arena]]:
        """Up to `size` of each phase, by its key: `running`, `upcoming`, `ended` (the list page
        and the API's list)."""
        return {
            "running": list(self.running(now)[:size]),
            "upcoming": list(self.upcoming(now)[:size]),
            "ended": list(self.ended(now)[:size]),
        }


class Arena(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public (listed on /arenas/)"
        LINK = "link", "Only by link"

    class Phase(models.TextChoices):
        UPCOMING = "upcoming", "Upcoming"
        RUNNING = "running", "Running"
        ENDED = "ended", "Ended"

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    name = models.CharField(max_length=64)
    variant = models.CharField(max_length=16, choices=Variant.choices)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    race_time_limit_s = models.PositiveIntegerField(default=300, help_text="Each race's limit.")
    created_by = models.ForeignKey(
        "games.Player",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="arenas_set_up",
    )
    schedule = models.ForeignKey(
        ArenaSchedule, null=True, blank=True, on_delete=models.SET_NULL, related_name="arenas"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ArenaQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at", "pk"]
        indexes = [models.Index(fields=["visibility", "ends_at", "starts_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")), name="arena_ends_after_start"
            ),
            models.UniqueConstraint(
                fields=["schedule", "starts_at"], name="one_scheduled_arena_per_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.starts_at:%Y-%m-%d %H:%M})"

    def get_absolute_url(self) -> str:
        return reverse("arenas:arena", args=[self.public_id])

    def next_race_wait(self) -> dict:
        """What a race's page needs to wait for its racer's next race of the arena once the race
        is over (js/arena-next.js): the race's `arena` event, and the page's config for a page
        opened after that event."""
        return {
            "url": self.get_absolute_url(),
            "arena": self.public_id,
            "ends_at": int(self.ends_at.timestamp() * 1000),
        }

    def facts(self) -> dict:
        """What the JSON API says of the arena wherever it lists one (its own document, a
        player's arenas)."""
        return {
            "id": self.public_id,
            "name": self.name,
            "variant": self.variant,
            "starts_at": self.starts_at.isoformat(),
            "ends_at": self.ends_at.isoformat(),
            "phase": self.phase(),
        }

    def phase(self, now=None) -> str:
        now = now or timezone.now()
        if now < self.starts_at:
            return self.Phase.UPCOMING
        return self.Phase.RUNNING if now < self.ends_at else self.Phase.ENDED

    @property
    def group_name(self) -> str:
        """The channel group of every socket on this arena's page."""
        return f"arena.{self.public_id}"

    @property
    def socket_path(self) -> str:
        """The arena's page's socket (arenas/routing.py), which its tickets name."""
        return f"/ws/arena/{self.public_id}/"


class ArenaPlayer(models.Model):
    """One player in one arena: whether they can be placed now, and their totals."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="players")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="arenas")
    joined_at = models.DateTimeField(auto_now_add=True)
    paused = models.BooleanField(default=False, help_text="Sits out: not placed until resumed.")
    sockets = models.IntegerField(
        default=0, help_text="Arena pages open: a player is placed only while one is."
    )
    seen_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Last seen on an arena page (its server says so every few seconds): a count "
        "left up by a server that died goes stale.",
    )
    free_since = models.DateTimeField(
        null=True, blank=True, help_text="Back in the arena's lobby since (None: in a race)."
    )
    points = models.PositiveIntegerField(default=0)
    races = models.PositiveIntegerField(default=0)
    place_sum = models.PositiveIntegerField(default=0)
    podiums_in_a_row = models.PositiveSmallIntegerField(default=0)
    last_scored_s = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-points", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "player"], name="one_entry_per_arena"),
        ]
        indexes = [models.Index(fields=["player", "-joined_at"], name="arena_player_latest")]

    def __str__(self) -> str:
        return f"{self.player} in {self.arena}"


class ArenaRace(models.Model):
    """A race placed by an arena."""

    race = models.OneToOneField(
        "races.Race", on_delete=models.CASCADE, primary_key=True, related_name="arena_race"
    )
    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="races")
    placed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["placed_at"]

    def __str__(self) -> str:
        return f"{self.race_id} in {self.arena}"


def arena_of_race(race) -> Arena | None:
    """The arena that placed the race, or None (one read)."""
    link = one_or_none(ArenaRace.objects.select_related("arena").filter(race=race))
    return None if link is None else link.arena


class ArenaResult(models.Model):
    """One racer's place and points in one race of an arena: the record."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(
        "games.Player", on_delete=models.CASCADE, related_name="arena_results"
    )
    race = models.ForeignKey("races.Race", on_delete=models.CASCADE, related_name="arena_results")
    place = models.PositiveSmallIntegerField()
    racers = models.PositiveSmallIntegerField()
    moved = models.BooleanField()
    won = models.BooleanField()
    points = models.PositiveSmallIntegerField()
    doubled = models.BooleanField(default=False)
    withheld = models.BooleanField(
        default=False,
        help_text="Fair play withholds the result (at the race's close or since): no points.",
    )
    at_s = models.PositiveIntegerField(help_text="When the race ended, from the arena's start.")
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["arena", "player", "at"])]
        constraints = [
            models.UniqueConstraint(fields=["race", "player"], name="one_arena_result_per_racer"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.points} pts in {self.race_id}"
