"""The rating boards beside the other boards (/leaderboards/…, /api/leaderboards/…) and a
player's ratings as JSON; included before the daily app's `leaderboards/<kind>/<variant>/`."""

from django.urls import path

from races.ratings import views

app_name = "ratings"

urlpatterns = [
    path("leaderboards/rating/<str:variant>/", views.board_page, name="board"),
    path("api/leaderboards/rating/<str:variant>/", views.board_api, name="api_board"),
    path("api/players/<rowid:player_id>/ratings/", views.player_api, name="api_player"),
]
