"""The site's URLs: each app's, accounts (Django's auth views) and the admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

# A missing page or an error gets the site's own page, DEBUG or not (solitaire_site/notfound.py).
urlpatterns = [
    path("", include("games.urls")),
    path("races/", include("races.urls")),
    path("", include("arenas.urls")),  # /arenas/… and /api/arenas/…
    path("", include("races.ratings.urls")),  # before records' leaderboards/<kind>/…
    path("", include("daily.urls")),  # before records' daily/<variant>/<day>/
    path("", include("records.urls")),
    path("fairplay/", include("fairplay.urls")),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # Browsers and tools ask for /favicon.ico whatever the page's <link rel="icon"> says.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
]
