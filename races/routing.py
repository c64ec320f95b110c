"""Websocket routes of the races app."""

from django.urls import path

from races.consumers import RaceConsumer

websocket_urlpatterns = [
    path("ws/race/<str:code>/", RaceConsumer.as_asgi()),
]
