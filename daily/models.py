"""The daily challenge: one deal per variant per UTC day, and every attempt at it.

The database is the record. The live boards in Redis (records/leaderboard.py) are an index built
from these rows and rebuilt from them whenever Redis has lost them.
"""

from django.db import models
from django.urls import reverse

from games.models import Game, Player, Variant


class DailyChallenge(models.Model):
    """A day's deal for one variant, picked once by daily.dealpick and cached here."""

    class Proof(models.TextChoices):
        WON = "won", "Proved winnable"
        UNKNOWN = "unknown", "Not proved (solver budget or solver absent)"
        LOST = "lost", "Every candidate proved lost"

    variant = models.CharField(max_length=16, choices=Variant.choices)
    day = models.DateField(help_text="The UTC day on which this deal is the challenge.")
    seed = models.BigIntegerField(help_text="Secret until a player's ranked game is over.")
    candidate = models.PositiveSmallIntegerField(
        help_text="Which candidate seed of the day's sequence was taken."
    )
    proof = models.CharField(max_length=8, choices=Proof.choices)
    solution = models.JSONField(
        default=list, blank=True, help_text="The solver's winning line (never sent to players)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day", "variant"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "day"], name="one_daily_deal_per_variant"),
        ]

    def __str__(self) -> str:
        return f"{self.get_variant_display()} {self.day.isoformat()}"

    def get_absolute_url(self) -> str:
        return reverse("records:board", args=[self.variant, self.day.isoformat()])


class DailyAttempt(models.Model):
    """One play of a day's deal: the ranked one (first, by an account) or a practice one."""

    challenge = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="attempts")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="daily_attempts")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="daily_attempt")
    ranked = models.BooleanField(
        default=False, help_text="The player's first attempt of the day with an account."
    )
    foundations = models.PositiveSmallIntegerField(
        default=0, help_text="Cards on the foundations now."
    )
    foundations_ms = models.BigIntegerField(
        default=0, help_text="Milliseconds into the attempt when that count was reached."
    )
    elapsed_ms = models.BigIntegerField(
        null=True, blank=True, help_text="Time from start to the finish, once over."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["challenge", "player"],
                condition=models.Q(ranked=True),
                name="one_ranked_daily_attempt",
            ),
        ]
        indexes = [models.Index(fields=["challenge", "ranked"])]

    def __str__(self) -> str:
        kind = "ranked" if self.ranked else "practice"
        return f"{self.player} on {self.challenge} ({kind})"

    @property
    def won(self) -> bool:
        return self.game.status == Game.Status.WON


class GhostRace(models.Model):
    """A game played against a recorded run (a finished daily or race game) shown beside it.

    The game is a practice attempt on the run's deal: a daily attempt (never ranked) for a daily
    run, a practice game for a race's run.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="ghost_race")
    ghost = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="+", help_text="The recorded run."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.game.player} against {self.ghost.player}'s run"


class LosingMove(models.Model):
    """Where a finished game was thrown away, as the solver found it off the request
    (records/analysis.py): the replay frame right after the first move from a position proved
    winnable to one proved lost, or none. Kept for the log length it was found for: a stuck
    practice game undone and played on is looked at again."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="losing_move"
    )
    seq = models.PositiveIntegerField(help_text="The log length the search covered.")
    frame = models.PositiveIntegerField(
        null=True, blank=True, help_text="The frame after the losing move; null: none proved."
    )
    analysed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.game}: lost at {self.frame}" if self.frame else f"{self.game}: not lost"


class DailyStreak(models.Model):
    """A player's run of consecutive days with a ranked daily win, per variant, kept as wins are
    recorded (records/streakbook.py) so the streak board never reads history."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="daily_streaks")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    longest = models.PositiveIntegerField(default=0)
    current = models.PositiveIntegerField(default=0, help_text="The run ending on last_day.")
    last_day = models.DateField(help_text="The latest day won.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "variant"], name="one_streak_per_variant"),
        ]
        indexes = [models.Index(fields=["variant", "longest"])]

    def __str__(self) -> str:
        return f"{self.player} on {self.variant}: {self.longest}"
