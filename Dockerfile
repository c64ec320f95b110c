# One image for every Python service of docker-compose.yml: web (Daphne, the default command),
# migrate (one-shot) and scheduler. The web process is meant to sit behind deploy/nginx/:
# --proxy-headers makes Daphne take the client's address and scheme from nginx's
# X-Forwarded-For/-Proto, which nginx overwrites and nothing else can reach.
# The lock stage turns uv.lock into the production set as a requirements file: every package pinned
# with its hashes, the project itself left out. --locked fails the build if pyproject.toml and uv.lock
# disagree. uv comes from requirements-uv.txt, pinned and hash-checked, and stays in this stage.
FROM python:3.11-slim AS lock
COPY requirements-uv.txt /src/
RUN pip install --no-cache-dir --root-user-action=ignore --target /uv --require-hashes -r /src/requirements-uv.txt
COPY pyproject.toml uv.lock /src/
RUN /uv/bin/uv export --project /src --locked --no-emit-project --format requirements-txt --output-file /requirements.txt

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The locked dependencies in a layer of their own, hash-checked. Docker keys this COPY on the
# exported file's content, so only a change of uv.lock's production set rebuilds the layer and the
# install after it; a code change (or an edit of pyproject.toml's tool settings) reuses them and
# rebuilds only from `COPY . .` on.
COPY --from=lock /requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir --root-user-action=ignore --require-hashes --no-deps -r /tmp/requirements.txt
COPY . .
# The project itself, editable, without a new resolution (--no-deps).
RUN pip install --no-cache-dir --root-user-action=ignore --no-deps -e .
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
