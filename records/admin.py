"""The boards' action in the admin: a day's live boards rebuilt from the database."""

from django.contrib import admin, messages
from django.template.defaultfilters import pluralize

from daily.admin import DailyChallengeAdmin
from daily.models import DailyChallenge
from records import leaderboard
from records.boards import DAILY, Board


@admin.action(description="Rebuild the live boards of the selected days from the database")
def rebuild_boards(modeladmin, request, queryset) -> None:
    entries = sum(leaderboard.rebuild(Board(DAILY, c.variant, c.day)) for c in queryset.iterator())
    boards = queryset.count()
    modeladmin.message_user(
        request,
        f"Rebuilt {boards} board{pluralize(boards)} ({entries} entr{pluralize(entries, 'y,ies')}).",
        messages.SUCCESS,
    )


class ChallengeBoardsAdmin(DailyChallengeAdmin):
    """The daily challenge's admin (daily/admin.py) with the boards' rebuild action."""

    actions = [rebuild_boards]


admin.site.unregister(DailyChallenge)
admin.site.register(DailyChallenge, ChallengeBoardsAdmin)
