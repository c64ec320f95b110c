"""The "set up an arena" form."""

from datetime import UTC, timedelta

from django import forms
from django.utils import timezone
from django.utils.text import capfirst

from arenas.actions import MAX_MINUTES, MIN_MINUTES, arena_refusals
from arenas.models import Arena
from games.engine import VARIANT_INFO, VARIANTS

LENGTHS = [(n, f"{n} minutes") for n in (MIN_MINUTES, 10, 15, 20, 30, 45, 60, 90, 120, MAX_MINUTES)]
AHEAD_OF_UTC = (-12 * 60, 14 * 60)
"""The bounds of a place's clock against UTC, in minutes: UTC-12:00 to UTC+14:00."""
UNREAD_CLOCK = (
    "Your browser's time zone came with the start but could not be read: reload the page and "
    "set the start again."
)
REFUSED_FIELD = {
    "unknown_variant": "variant",
    "bad_length": "minutes",
    "bad_start": "starts_at",
    "bad_time_limit": "race_time_limit_s",
    "bad_visibility": "visibility",
}
"""The field that each refusal of `actions.arena_refusals` is about."""
RACE_LIMITS = [
    (60, "1 minute"),
    (120, "2 minutes"),
    (180, "3 minutes"),
    (300, "5 minutes"),
    (600, "10 minutes"),
]


class ArenaForm(forms.Form):
    name = forms.CharField(max_length=64, required=False, help_text="Optional: the game's name.")
    variant = forms.ChoiceField(
        label="Game", choices=[(v, VARIANT_INFO[v]["name"]) for v in VARIANTS]
    )
    starts_at = forms.DateTimeField(
        label="Starts at (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        help_text="In UTC: with scripts on, the page takes your own time instead.",
    )
    # How far the start as typed is ahead of UTC, in minutes: js/arena-new.js fills it from the
    # browser's clock for the day typed (summer time included); empty, the start is in UTC.
    minutes_ahead_of_utc = forms.IntegerField(
        required=False,
        min_value=AHEAD_OF_UTC[0],
        max_value=AHEAD_OF_UTC[1],
        widget=forms.HiddenInput,
    )
    minutes = forms.TypedChoiceField(
        label="Length",
        choices=LENGTHS,
        coerce=int,
        initial=30,
        help_text=f"{MIN_MINUTES} to {MAX_MINUTES} minutes.",
        error_messages={
            "invalid_choice": f"Pick one of the lengths ({MIN_MINUTES} to {MAX_MINUTES} minutes)."
        },
    )
    race_time_limit_s = forms.TypedChoiceField(
        label="Each race's time limit", choices=RACE_LIMITS, coerce=int, initial=300
    )
    visibility = forms.ChoiceField(
        choices=Arena.Visibility.choices, initial=Arena.Visibility.LINK, widget=forms.RadioSelect
    )
    join = forms.BooleanField(
        label="Join it myself",
        required=False,
        initial=True,
        help_text="You can sit out its races, or leave it, on its page at any time.",
    )

    def __init__(self, *args, now, **kwargs):
        """`now`: the moment the settings are checked at, which the view gives the action too
        (what the form took, the action takes)."""
        super().__init__(*args, **kwargs)
        self.now = now

    def clean(self):
        """The start as typed, read in the player's own time where their browser said how far
        it is ahead of UTC, else in UTC; then every setting the arena's rules refuse, each
        beside its field (one the form could not read is not checked again)."""
        data = super().clean()
        if "minutes_ahead_of_utc" in self.errors:
            # A hidden field's error would show nowhere: it is the start's.
            del self.errors["minutes_ahead_of_utc"]
            self.add_error("starts_at", UNREAD_CLOCK)
        elif data.get("starts_at") is not None:
            typed = timezone.make_naive(data["starts_at"]).replace(tzinfo=UTC)
            data["starts_at"] = typed - timedelta(minutes=data.get("minutes_ahead_of_utc") or 0)
        refusals = arena_refusals(
            variant=data.get("variant"),
            starts_at=data.get("starts_at"),
            minutes=data.get("minutes"),
            race_time_limit_s=data.get("race_time_limit_s"),
            visibility=data.get("visibility"),
            now=self.now,
        )
        for refusal in refusals:
            # the action's reason, as a sentence
            self.add_error(REFUSED_FIELD[refusal.code], f"{capfirst(refusal.reason)}.")
        return data
