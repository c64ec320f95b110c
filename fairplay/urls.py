from django.urls import path

from fairplay import views

app_name = "fairplay"

urlpatterns = [
    path("report/<slug:public_id>/", views.report, name="report"),
    path(
        "report/daily/<slug:variant>/<slug:day>/<rowid:ranked_player_id>/",
        views.report_daily,
        name="report_daily",
    ),
]
