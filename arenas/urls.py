"""Pages of the arenas app."""

from django.urls import path

from arenas import views

app_name = "arenas"

urlpatterns = [
    path("", views.arena_list, name="list"),
    path("new/", views.arena_new, name="new"),
    path("<str:arena_id>/", views.arena_page, name="arena"),
    path("<str:arena_id>/join/", views.arena_join, name="join"),
    path("<str:arena_id>/pause/", views.arena_pause, name="pause"),
    path("<str:arena_id>/leave/", views.arena_leave, name="leave"),
    path("<str:arena_id>/players/<int:player_id>/", views.arena_player, name="player"),
]
