"""Pages of the races app."""

from django.urls import path

from races import quick_views, views

app_name = "races"

urlpatterns = [
    path("", views.race_list, name="list"),
    path("new/", views.race_new, name="new"),
    path("join/", views.join_by_code, name="join_by_code"),
    path("quick/", quick_views.quick_race, name="quick"),
    path("<str:code>/", views.race_page, name="race"),
    path("<str:code>/join/", views.race_join, name="join"),
    path("<str:code>/results/", views.race_results, name="results"),
    path("<str:code>/rematch/", views.race_rematch, name="rematch"),
]
