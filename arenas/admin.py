from django.contrib import admin, messages
from django.db import transaction

from arenas import events
from arenas.models import Arena, ArenaPlayer, ArenaResult, ArenaSchedule
from arenas.schedule import Remade, clear_coming, remake_coming


@admin.register(ArenaSchedule)
class ArenaScheduleAdmin(admin.ModelAdmin):
    """A schedule's arenas are made a day ahead: on a save that changed it (in the form or the
    list) its coming arenas nobody joined take its settings as they now are, in place where
    their start is still one of its own (their links kept), the others removed and the new
    starts' made (none if it was deactivated); on a delete they go. The ones someone joined
    stay as they were."""

    list_display = ("variant", "every_minutes", "offset_minutes", "length_minutes", "active")
    list_editable = ("every_minutes", "offset_minutes", "length_minutes", "active")
    list_filter = ("active", "variant")

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change and not form.changed_data:
            return  # saved as it was: its coming arenas stay as they are
        self.tell(request, obj, remake_coming(obj))

    def delete_model(self, request, obj) -> None:
        self.tell(request, obj, clear_coming(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        # The delete action runs in no transaction: one keeps each schedule's row locked from
        # its arenas' removal to its own (arenas/schedule.py `lock_coming`).
        with transaction.atomic():
            for obj in queryset:
                self.tell(request, obj, clear_coming(obj))
            super().delete_queryset(request, queryset)

    def tell(self, request, obj: ArenaSchedule, remade: Remade) -> None:
        done = [f"removed {remade.removed} coming arenas nobody had joined"]
        if remade.changed:
            done.append(f"changed {remade.changed} in place (their links kept)")
        if remade.made is not None:
            done.append(f"made {remade.made} under its settings as they now are")
        said = f"{obj}: {', '.join(done)}."
        if remade.kept:
            said += (
                f" {remade.kept} coming arenas someone has joined stay as they were, under its "
                "earlier settings."
            )
        self.message_user(request, said, messages.WARNING if remade.kept else messages.INFO)


@admin.register(Arena)
class ArenaAdmin(admin.ModelAdmin):
    """An arena changed here in what its pages show or go by (`events.EDITABLE`: its times, its
    name, game, races' limit, visibility) is changed on its pages open too, after the commit."""

    list_display = ("name", "variant", "starts_at", "ends_at", "visibility", "schedule")
    list_filter = ("variant", "visibility")
    search_fields = ("name", "public_id")
    readonly_fields = ("public_id", "created_at")
    raw_id_fields = ("created_by",)
    date_hierarchy = "starts_at"

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change and set(form.changed_data) & set(events.EDITABLE):
            transaction.on_commit(lambda: events.edited([obj]))


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
