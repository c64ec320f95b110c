"""Forms for who the player is: a nickname, and signing up."""

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError

from games.identity import GUESTS_OWN, check_name_free
from games.models import NICKNAME_MAX_LENGTH, Player, is_guest_name


class NicknameForm(forms.ModelForm):
    """The name shown on leaderboards and in races; guests and accounts alike. A chosen name is
    the player's alone (`check_name_free`; the database says so too: `Player`'s constraint)."""

    class Meta:
        model = Player
        fields = ["nickname"]

    def clean_nickname(self) -> str:
        name = " ".join(self.cleaned_data["nickname"].split())
        check_name_free(name, self.instance if self.instance.pk else None)
        return name


class SignUpForm(UserCreationForm):
    """Django's sign-up form (username, password twice); the guest's Player joins the account,
    named after the username unless they chose a nickname (`player`: the guest, if any), so
    that name must be free, and not a guest's kind."""

    class Meta(UserCreationForm.Meta):
        fields = ["username"]

    def __init__(self, *args, player: Player | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.player = player

    def clean_username(self) -> str:
        username = super().clean_username()
        if self.player is None or is_guest_name(self.player.nickname):
            name = username[:NICKNAME_MAX_LENGTH]
            if is_guest_name(name):
                raise ValidationError(GUESTS_OWN, code="guest_name")
            check_name_free(name, self.player)
        return username
