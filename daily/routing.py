"""Websocket routes of the daily challenge."""

from django.urls import path

from daily.consumers import DailyGameConsumer

websocket_urlpatterns = [
    path("ws/daily/", DailyGameConsumer.as_asgi()),
]
