"""Pages of the daily challenge: a variant's start page, starting, playing and resigning."""

from django.urls import path

from daily import views

app_name = "daily"

urlpatterns = [
    path("daily/play/<slug:public_id>/", views.play, name="play"),
    path("daily/play/<slug:public_id>/resign/", views.resign, name="resign"),
    path("daily/<slug:variant>/", views.variant_page, name="variant"),
    path("daily/<slug:variant>/start/", views.start, name="start"),
]
