"""Pages of the daily challenge: a variant's start page, starting, playing and resigning."""

from django.urls import path

from daily import views

app_name = "daily"

urlpatterns = [
    path("daily/play/<publicid:public_id>/", views.play, name="play"),
    path("daily/play/<publicid:public_id>/resign/", views.resign, name="resign"),
    path("daily/<str:variant>/", views.variant_page, name="variant"),
    path("daily/<str:variant>/start/", views.start, name="start"),
]
