"""The "set up an arena" form."""

from datetime import UTC

from django import forms

from arenas.actions import MAX_MINUTES, MIN_MINUTES
from arenas.models import Arena
from games.engine import VARIANT_INFO, VARIANTS

LENGTHS = [(n, f"{n} minutes") for n in (10, 15, 20, 30, 45, 60, 90, 120)]
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
    )
    minutes = forms.TypedChoiceField(
        label="Length",
        choices=LENGTHS,
        coerce=int,
        initial=30,
        help_text=f"{MIN_MINUTES} to {MAX_MINUTES} minutes.",
    )
    race_time_limit_s = forms.TypedChoiceField(
        label="Each race's time limit", choices=RACE_LIMITS, coerce=int, initial=300
    )
    visibility = forms.ChoiceField(
        choices=Arena.Visibility.choices, initial=Arena.Visibility.LINK, widget=forms.RadioSelect
    )

    def clean_starts_at(self):
        value = self.cleaned_data["starts_at"]
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value
