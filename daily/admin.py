"""Daily challenges and their results in the admin."""

from django.contrib import admin
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html

from daily.models import DailyAttempt, DailyChallenge, GhostRace


class AttemptInline(admin.TabularInline):
    model = DailyAttempt
    fk_name = "challenge"
    fields = ["player", "ranked", "status", "foundations", "elapsed_ms", "game", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-ranked", "elapsed_ms", "-foundations"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="status")
    def status(self, attempt: DailyAttempt) -> str:
        return attempt.game.get_status_display()


@admin.register(DailyChallenge)
class DailyChallengeAdmin(admin.ModelAdmin):
    list_display = ["day", "variant", "proof", "candidate", "ranked_players", "winners", "board"]
    list_filter = ["variant", "proof"]
    date_hierarchy = "day"
    search_fields = ["seed"]
    readonly_fields = ["variant", "day", "seed", "candidate", "proof", "solution", "created_at"]
    inlines = [AttemptInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_ranked=Count("attempts", filter=Q(attempts__ranked=True)),
                n_won=Count(
                    "attempts", filter=Q(attempts__ranked=True, attempts__game__status="won")
                ),
            )
        )

    def has_add_permission(self, request) -> bool:
        return False  # picked by daily.dealpick, never by hand

    @admin.display(description="ranked players", ordering="n_ranked")
    def ranked_players(self, challenge) -> int:
        return challenge.n_ranked

    @admin.display(description="winners", ordering="n_won")
    def winners(self, challenge) -> int:
        return challenge.n_won

    @admin.display(description="board")
    def board(self, challenge) -> str:
        return format_html('<a href="{}">board</a>', challenge.get_absolute_url())


@admin.register(DailyAttempt)
class DailyAttemptAdmin(admin.ModelAdmin):
    list_display = [
        "challenge",
        "player",
        "ranked",
        "status",
        "foundations",
        "elapsed_ms",
        "replay",
        "created_at",
    ]
    list_filter = ["ranked", "challenge__variant", "game__status"]
    list_select_related = ["challenge", "player", "game"]
    search_fields = ["player__nickname", "game__public_id"]
    raw_id_fields = ["challenge", "player", "game"]
    readonly_fields = ["foundations", "foundations_ms", "elapsed_ms", "created_at"]
    date_hierarchy = "created_at"

    @admin.display(description="status", ordering="game__status")
    def status(self, attempt: DailyAttempt) -> str:
        return attempt.game.get_status_display()

    @admin.display(description="replay")
    def replay(self, attempt: DailyAttempt) -> str:
        if not attempt.game.is_over:
            return "–"
        return format_html(
            '<a href="{}">replay</a>', reverse("records:replay", args=[attempt.game.public_id])
        )


@admin.register(GhostRace)
class GhostRaceAdmin(admin.ModelAdmin):
    list_display = ["game", "ghost", "created_at"]
    raw_id_fields = ["game", "ghost"]
    date_hierarchy = "created_at"
