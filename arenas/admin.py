from django.contrib import admin

from arenas.models import Arena, ArenaPlayer, ArenaResult, ArenaSchedule


@admin.register(ArenaSchedule)
class ArenaScheduleAdmin(admin.ModelAdmin):
    list_display = ("variant", "every_minutes", "offset_minutes", "length_minutes", "active")
    list_editable = ("every_minutes", "offset_minutes", "length_minutes", "active")
    list_filter = ("active", "variant")


@admin.register(Arena)
class ArenaAdmin(admin.ModelAdmin):
    list_display = ("name", "variant", "starts_at", "ends_at", "visibility", "schedule")
    list_filter = ("variant", "visibility")
    search_fields = ("name", "public_id")
    readonly_fields = ("public_id", "created_at")
    raw_id_fields = ("created_by",)
    date_hierarchy = "starts_at"


@admin.register(ArenaPlayer)
class ArenaPlayerAdmin(admin.ModelAdmin):
    list_display = ("player", "arena", "points", "races", "paused")
    raw_id_fields = ("arena", "player")
    readonly_fields = ("points", "races", "place_sum", "podiums_in_a_row", "last_scored_s")


@admin.register(ArenaResult)
class ArenaResultAdmin(admin.ModelAdmin):
    list_display = ("player", "arena", "race", "place", "points", "doubled", "at")
    raw_id_fields = ("arena", "player", "race")
    readonly_fields = [f.name for f in ArenaResult._meta.fields]
