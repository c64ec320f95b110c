from django.contrib import admin

from races.models import Race, RaceEvent, Racer, Rating, RatingChange


class RacerInline(admin.TabularInline):
    model = Racer
    extra = 0
    fields = ("name", "player", "status", "cards", "moves", "finish_ms", "place", "game")
    readonly_fields = fields
    can_delete = False


@admin.register(Race)
class RaceAdmin(admin.ModelAdmin):
    list_display = ("code", "variant", "status", "visibility", "seed_chosen", "created_at")
    list_filter = ("status", "variant", "visibility")
    search_fields = ("code",)
    readonly_fields = ("event_seq", "created_at", "starts_at", "ends_at", "finished_at")
    raw_id_fields = ("host", "rematch")
    inlines = [RacerInline]


@admin.register(RaceEvent)
class RaceEventAdmin(admin.ModelAdmin):
    list_display = ("race", "seq", "kind", "at")
    list_filter = ("kind",)
    search_fields = ("race__code",)
    raw_id_fields = ("race",)


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("player", "variant", "mu", "sigma", "races", "updated_at")
    list_filter = ("variant",)
    search_fields = ("player__nickname",)
    raw_id_fields = ("player",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    """The record of what each rated race did (read only: a race's result is applied once)."""

    list_display = ("race", "player", "variant", "mu_before", "mu_after", "races", "at")
    list_filter = ("variant",)
    search_fields = ("race__code", "player__nickname")
    raw_id_fields = ("race", "player")

    def has_change_permission(self, request, obj=None) -> bool:
        return False
