"""Pages and JSON API of the arenas app."""

from django.urls import path

from arenas import api, views

app_name = "arenas"

urlpatterns = [
    path("arenas/", views.arena_list, name="list"),
    path("arenas/new/", views.arena_new, name="new"),
    path("arenas/<publicid:arena_id>/", views.arena_page, name="arena"),
    path("arenas/<publicid:arena_id>/join/", views.arena_join, name="join"),
    path("arenas/<publicid:arena_id>/pause/", views.arena_pause, name="pause"),
    path("arenas/<publicid:arena_id>/leave/", views.arena_leave, name="leave"),
    path(
        "arenas/<publicid:arena_id>/players/<rowid:player_id>/", views.arena_player, name="player"
    ),
    path("api/arenas/", api.arena_list, name="api_list"),
    path("api/arenas/<publicid:arena_id>/", api.arena_detail, name="api_arena"),
    path(
        "api/arenas/<publicid:arena_id>/players/<str:player_id>/",
        api.arena_player,
        name="api_player",
    ),
]
