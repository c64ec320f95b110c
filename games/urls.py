"""Pages of the games app."""

from django.urls import path

from games import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/<slug:variant>/", views.new_deal, name="new_deal"),
    path("play/<slug:variant>/winnable/", views.new_winnable_deal, name="new_winnable_deal"),
    path("play/<slug:variant>/winnable/status/", views.winnable_status, name="winnable_status"),
    path("play/<slug:variant>/<str:seed>/", views.play, name="play"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/nickname/", views.nickname, name="nickname"),
    path("healthz", views.healthz, name="healthz"),
]
