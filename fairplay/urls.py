from django.urls import path

from fairplay import views

app_name = "fairplay"

urlpatterns = [
    path("report/<publicid:public_id>/", views.report, name="report"),
    path(
        "report/daily/<str:variant>/<str:day>/<rowid:ranked_player_id>/",
        views.report_daily,
        name="report_daily",
    ),
]
