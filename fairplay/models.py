"""What fair play keeps: an assessment of each ranked result, players' reports, and the accounts
a reviewer confirmed as bots.

An assessment is made once for a game's record (`seq`, the log length it covered): a finish that
is handed over twice finds it made. A verdict other than clear holds the result (`is_held`) while
its status is pending; a person then clears it (the result is published) or confirms it (the
account is flagged, `FlaggedPlayer`).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from fairplay.rules import Verdict, rule_named
from games.models import Game, Player


class Assessment(models.Model):
    class Kind(models.TextChoices):
        DAILY = "daily", "Daily challenge"
        RACE = "race", "Rated race"

    class VerdictChoice(models.TextChoices):
        CLEAR = Verdict.CLEAR, "Clear"
        REVIEW = Verdict.REVIEW, "Review"
        LIKELY_BOT = Verdict.LIKELY_BOT, "Likely bot"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending review"
        CLEARED = "cleared", "Cleared"
        CONFIRMED = "confirmed", "Confirmed bot"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="assessment")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="assessments")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    seq = models.PositiveIntegerField(help_text="The log length the assessment covered.")
    figures = models.JSONField(default=dict, blank=True)
    think_ms = models.JSONField(
        default=list, blank=True, help_text="The think times, in order (the review's chart)."
    )
    verdict = models.CharField(max_length=12, choices=VerdictChoice.choices)
    rule = models.CharField(max_length=32, help_text="The rule that gave the verdict.")
    status = models.CharField(max_length=10, choices=Status.choices)
    reports = models.PositiveIntegerField(default=0, help_text="Players' reports of the result.")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="fairplay_reviews",
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="assessment_queue"),
            models.Index(fields=["player", "status"], name="assessment_player"),
        ]

    def __str__(self) -> str:
        return f"{self.game} — {self.get_verdict_display()} ({self.get_status_display()})"

    @property
    def is_held(self) -> bool:
        """The result stays off the boards and out of the ratings until a person decides."""
        return self.status == self.Status.PENDING and self.verdict != Verdict.CLEAR

    @property
    def reason(self) -> str:
        """The sentence of the rule that gave the verdict."""
        try:
            return rule_named(self.rule).says
        except ValueError:
            return self.rule


class Report(models.Model):
    """A player's report of someone's ranked result: it adds the result to the review queue and
    never removes anything by itself."""

    class Reason(models.TextChoices):
        BOT = "bot", "Played by a program"
        OTHER = "other", "Something else"

    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="reports_made")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reports")
    reason = models.CharField(max_length=8, choices=Reason.choices, default=Reason.BOT)
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["reporter", "-created_at"], name="report_recent")]
        constraints = [
            models.UniqueConstraint(fields=["reporter", "game"], name="one_report_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.reporter} reported {self.game} ({self.get_reason_display()})"


class FlaggedPlayer(models.Model):
    """An account a reviewer confirmed as a bot: its ranked results are off the boards."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="fairplay_flag")
    assessment = models.ForeignKey(
        Assessment, on_delete=models.SET_NULL, null=True, blank=True, related_name="flags"
    )
    flagged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    flagged_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-flagged_at"]

    def __str__(self) -> str:
        return f"{self.player} (flagged {self.flagged_at:%Y-%m-%d})"
