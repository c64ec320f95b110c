"""Template context every page gets."""

from games.identity import current_player


def player(request):
    """The current Player, if there is one yet (a page that only shows never creates a guest)."""
    if not hasattr(request, "session"):
        return {}
    return {"player": current_player(request, create=False)}
