"""Forms for who the player is: a nickname, and signing up."""

from django import forms
from django.contrib.auth.forms import UserCreationForm

from games.models import Player


class NicknameForm(forms.ModelForm):
    """The name shown on leaderboards and in races; guests and accounts alike."""

    class Meta:
        model = Player
        fields = ["nickname"]

    def clean_nickname(self) -> str:
        return " ".join(self.cleaned_data["nickname"].split())


class SignUpForm(UserCreationForm):
    """Django's sign-up form (username, password twice); the guest's Player joins the account."""

    class Meta(UserCreationForm.Meta):
        fields = ["username"]
