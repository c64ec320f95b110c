"""Websocket routes of the games app."""

from django.urls import path

from games.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/game/", GameConsumer.as_asgi()),
]
