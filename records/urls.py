"""Pages and JSON API of the record: today's daily boards, every board, player pages, replays."""

from django.urls import path

from records import api, views

app_name = "records"

urlpatterns = [
    path("daily/", views.today_page, name="today"),
    path("daily/<str:variant>/<str:day>/", views.daily_board, name="board"),
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("leaderboards/races/", views.races_board, name="races"),
    path("leaderboards/<str:kind>/<str:variant>/", views.all_time_board, name="all_time"),
    path("players/<rowid:player_id>/", views.player_page, name="player"),
    path("replay/<publicid:public_id>/", views.replay_page, name="replay"),
    path("replay/race/<str:code>/", views.race_replay_page, name="race_replay"),
    path("ghost/<publicid:public_id>/", views.ghost, name="ghost"),
    # The JSON API (docs/api.md)
    path("api/daily/", api.daily_index, name="api_daily"),
    path("api/leaderboards/races/", api.recent_races, name="api_races"),
    path("api/leaderboards/daily/<str:variant>/<str:day>/", api.daily_board, name="api_board"),
    path("api/leaderboards/<str:kind>/<str:variant>/", api.all_time_board, name="api_all_time"),
    path("api/players/<str:player_id>/", api.player, name="api_player"),
    path("api/replays/<publicid:public_id>/", api.game_replay, name="api_replay"),
    path("api/races/<str:code>/replay/", api.race_replay, name="api_race_replay"),
]
