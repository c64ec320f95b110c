"""The form that sets a race up, and the one a guest joins with."""

from django import forms

from games.engine import VARIANT_INFO, VARIANTS
from games.models import MAX_SEED, NICKNAME_MAX_LENGTH, nickname_validator
from games.winnable import offers_winnable
from races import lifecycle
from races.models import Race

TIME_LIMITS = [
    ("", "No time limit"),
    ("60", "1 minute"),
    ("180", "3 minutes"),
    ("300", "5 minutes"),
    ("600", "10 minutes"),
    ("900", "15 minutes"),
    ("1800", "30 minutes"),
    ("3600", "1 hour"),
]


class DealChoice:
    RANDOM = "random"
    WINNABLE = "winnable"
    SEED = "seed"
    choices = [
        (RANDOM, "A random deal"),
        (WINNABLE, "A winnable deal (the solver finds a win first)"),
        (SEED, "A deal number of my choice (unranked)"),
    ]


class NameField(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(
            max_length=NICKNAME_MAX_LENGTH,
            validators=[nickname_validator],
            label="Your nickname",
            help_text="The name others see, here and on the leaderboards.",
            **kwargs,
        )

    def clean(self, value):
        return " ".join((super().clean(value) or "").split())


class RaceForm(forms.Form):
    variant = forms.ChoiceField(choices=[(v, VARIANT_INFO[v]["name"]) for v in VARIANTS])
    deal = forms.ChoiceField(
        choices=DealChoice.choices, initial=DealChoice.RANDOM, widget=forms.RadioSelect
    )
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, required=False, label="Deal number")
    max_players = forms.TypedChoiceField(
        choices=[(n, n) for n in range(2, lifecycle.MAX_PLAYERS + 1)],
        coerce=int,
        initial=lifecycle.MAX_PLAYERS,
        label="Players at most",
    )
    time_limit = forms.TypedChoiceField(
        choices=TIME_LIMITS, coerce=int, empty_value=None, required=False, label="Time limit"
    )
    visibility = forms.ChoiceField(
        choices=Race.Visibility.choices, initial=Race.Visibility.LINK, widget=forms.RadioSelect
    )
    name = NameField(required=False)
    rated = forms.BooleanField(
        required=False,
        label="Rated: the result changes the signed-in racers' ratings",
    )

    def clean(self):
        data = super().clean()
        if data.get("deal") == DealChoice.SEED and data.get("seed") is None:
            self.add_error("seed", "Give the deal number to race on.")
        if data.get("deal") == DealChoice.SEED and data.get("rated"):
            self.add_error("rated", "A race on a deal of your choice cannot be rated.")
        variant = data.get("variant")
        if data.get("deal") == DealChoice.WINNABLE and variant and not offers_winnable(variant):
            self.add_error(
                "deal",
                f"Winnable deals are not offered for {VARIANT_INFO[variant]['name']}: the solver "
                "has never proved one. Race on a random deal.",
            )
        return data


class JoinForm(forms.Form):
    name = NameField(required=True)
