"""Admin for players, games and their move logs."""

from django.contrib import admin

from games.models import Game, Move, Player, WinnableDeal


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["nickname", "user", "created_at"]
    list_select_related = ["user"]
    search_fields = ["nickname", "user__username"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at"]


class MoveInline(admin.TabularInline):
    model = Move
    fields = ["seq", "move", "at"]
    readonly_fields = ["seq", "move", "at"]
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = [
        "public_id",
        "player",
        "variant",
        "seed",
        "kind",
        "status",
        "move_count",
        "started_at",
        "finished_at",
    ]
    list_filter = ["variant", "kind", "status"]
    list_select_related = ["player"]
    search_fields = ["public_id", "player__nickname", "seed"]
    raw_id_fields = ["player"]
    readonly_fields = ["public_id", "started_at", "seq"]
    date_hierarchy = "started_at"
    inlines = [MoveInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ["game", "seq", "move", "at"]
    list_select_related = ["game", "game__player"]
    search_fields = ["game__public_id"]
    raw_id_fields = ["game"]
    readonly_fields = ["at"]


@admin.register(WinnableDeal)
class WinnableDealAdmin(admin.ModelAdmin):
    """The pools of proved-winnable deals; race seeds are secret: staff only, as here."""

    list_display = ["variant", "use", "found_at"]
    list_filter = ["variant", "use"]
    readonly_fields = ["variant", "use", "seed", "found_at"]

    def has_add_permission(self, request) -> bool:
        return False  # a deal enters a pool only once the solver has proved it
