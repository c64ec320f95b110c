"""The review queue: pending assessments first, each with its figures, its think-time chart and a
link to the game's replay; the actions "clear" and "confirm" (fairplay/actions.py)."""

from django.contrib import admin, messages
from django.db.models import Case, IntegerField, Value, When
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from fairplay import actions
from fairplay.chart import think_time_svg
from fairplay.models import Assessment, FlaggedPlayer, Report

FIGURE_LABELS = {
    "actions": "moves (an autoplay counts once)",
    "undos": "undos",
    "think_median_ms": "median think time (ms)",
    "think_min_ms": "shortest think time (ms)",
    "fast_share": "share of think times under 250 ms",
    "think_cv": "variation of think times (CV)",
    "think_spread": "middle half of think times against the median ((Q3 - Q1) / median)",
    "fast_streak": "longest streak of moves under 250 ms",
    "ms_per_action": "finish time per move (ms)",
    "solver_judged": "positions the solver answered",
    "solver_agreement": "share of those where the move was the solver's",
}


@admin.register(Assessment)
class AssessmentAdmin(admin.ModelAdmin):
    list_display = [
        "game_link",
        "player",
        "kind",
        "verdict",
        "rule",
        "status",
        "reports",
        "created_at",
    ]
    list_filter = ["status", "verdict", "kind", "rule"]
    list_select_related = ["game", "player"]
    search_fields = ["game__public_id", "player__nickname", "player__user__username"]
    actions = ["clear", "confirm"]
    readonly_fields = [
        "game_link",
        "player",
        "kind",
        "verdict",
        "reason",
        "status",
        "reports",
        "figure_table",
        "chart",
        "replay",
        "reviewer",
        "reviewed_at",
        "created_at",
    ]
    fields = readonly_fields

    def get_queryset(self, request):
        """Pending first (held before reported), then the newest."""
        return Assessment.objects.annotate(
            queue=Case(
                When(status=Assessment.Status.PENDING, verdict="likely_bot", then=Value(0)),
                When(status=Assessment.Status.PENDING, verdict="review", then=Value(1)),
                When(status=Assessment.Status.PENDING, then=Value(2)),
                default=Value(3),
                output_field=IntegerField(),
            )
        ).order_by(*self.get_ordering(request))

    def get_ordering(self, request):
        return ["queue", "-created_at"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="game")
    def game_link(self, obj: Assessment) -> str:
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:games_game_change", args=[obj.game_id]),
            obj.game.public_id,
        )

    @admin.display(description="why")
    def reason(self, obj: Assessment) -> str:
        return obj.reason

    @admin.display(description="figures")
    def figure_table(self, obj: Assessment) -> str:
        rows = [(FIGURE_LABELS.get(k, k), v) for k, v in obj.figures.items() if k != "rows"]
        return format_html(
            "<table>{}</table>",
            format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows),
        )

    @admin.display(description="think times")
    def chart(self, obj: Assessment) -> str:
        # Numbers only go into the SVG (fairplay/chart.py), so it is safe as it is.
        return mark_safe(think_time_svg([int(ms) for ms in obj.think_ms]))  # noqa: S308

    @admin.display(description="replay")
    def replay(self, obj: Assessment) -> str:
        url = reverse("records:replay", args=[obj.game.public_id])
        return format_html('<a href="{}">watch the replay</a>', url)

    @admin.action(description="Clear: the result is fair, publish it")
    def clear(self, request, queryset) -> None:
        for assessment in queryset:
            actions.do_clear(assessment, request.user)
        self.message_user(request, f"{queryset.count()} cleared.", messages.SUCCESS)

    @admin.action(description="Confirm: a bot; flag the account, take its results off")
    def confirm(self, request, queryset) -> None:
        for assessment in queryset:
            actions.do_confirm(assessment, request.user)
        self.message_user(request, f"{queryset.count()} confirmed.", messages.SUCCESS)


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ["game", "reporter", "reason", "created_at"]
    list_select_related = ["game", "reporter"]
    raw_id_fields = ["game", "reporter"]
    search_fields = ["game__public_id", "reporter__nickname"]


@admin.register(FlaggedPlayer)
class FlaggedPlayerAdmin(admin.ModelAdmin):
    list_display = ["player", "flagged_by", "flagged_at"]
    list_select_related = ["player", "flagged_by"]
    raw_id_fields = ["player", "assessment"]
