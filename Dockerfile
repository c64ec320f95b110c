# One image for every Python service of docker-compose.yml: web (Daphne, the default command),
# migrate (one-shot) and scheduler. The web process is meant to sit behind deploy/nginx/:
# --proxy-headers makes Daphne take the client's address and scheme from nginx's
# X-Forwarded-For/-Proto, which nginx overwrites and nothing else can reach.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The dependencies first, so a code change does not reinstall them.
COPY pyproject.toml ./
COPY games ./games
COPY solitaire_site ./solitaire_site
RUN pip install --no-cache-dir .
COPY . .
# Not root; STATIC_ROOT belongs to the app user, so the migrate service's collectstatic can
# fill the `static` volume mounted there (a new volume takes the folder's owner).
RUN useradd --system --uid 10001 --home-dir /app app && mkdir -p staticfiles && chown app staticfiles
USER app
EXPOSE 8000
# Websocket messages over 64 KB are closed with 1009 by Daphne itself (scripts/servers.py, Makefile;
# solitaire_site/daphne_server.py is the daphne command with a close frame instead of a reset).
CMD ["python", "-m", "solitaire_site.daphne_server", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", \
     "--websocket-max-message-size", "65536", "--websocket-max-frame-size", "65536", \
     "solitaire_site.asgi:application"]
