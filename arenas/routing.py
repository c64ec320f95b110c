"""Websocket routes of the arenas app."""

from django.urls import path

from arenas.consumers import ArenaConsumer

websocket_urlpatterns = [
    path("ws/arena/<str:arena_id>/", ArenaConsumer.as_asgi()),
]
