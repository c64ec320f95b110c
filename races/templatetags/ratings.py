"""`{% player_ratings player %}`: a player's race ratings with a chart per variant, for the
player page (drawn inline as SVG, like the results chart)."""

from django import template

from races import ratings
from races.ratings.board import player_ratings
from races.ratings.chart import build_rating_chart

register = template.Library()


@register.inclusion_tag("races/_player_ratings.html")
def player_ratings_of(player) -> dict:
    rows = player_ratings(player)
    for row in rows:
        history = [point["rating"] for point in row["history"]]
        start = history[0] - row["history"][0]["change"] if history else row["rating"]
        row["chart"] = build_rating_chart(row["name"], history, start)
    return {"rows": rows, "provisional_races": ratings.PROVISIONAL_RACES}
