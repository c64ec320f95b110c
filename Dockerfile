FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml ./
COPY games ./games
COPY solitaire_site ./solitaire_site
RUN pip install --no-cache-dir .
COPY . .
RUN SECRET_KEY=build DEBUG=0 python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["sh", "-c", "python manage.py migrate --noinput && daphne -b 0.0.0.0 -p 8000 --websocket-max-message-size 65536 --websocket-max-frame-size 65536 solitaire_site.asgi:application"]
