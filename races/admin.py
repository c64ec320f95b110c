from django.contrib import admin

from races.models import Race, RaceEvent, Racer


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
