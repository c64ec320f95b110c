#!/bin/sh
# Run by the nginx image's entrypoint (/docker-entrypoint.d/) before nginx starts. With HTTPS=1
# nginx also serves 443 with deploy/tls/'s certificate; without the certificate it refuses to
# start, saying why, rather than serve plain http to a deployment that expects TLS.
set -eu
if [ "${HTTPS:-0}" = "1" ]; then
    for file in /etc/nginx/tls/fullchain.pem /etc/nginx/tls/privkey.pem; do
        if [ ! -r "$file" ]; then
            echo "HTTPS=1 but $file is missing: put the certificate in deploy/tls/" >&2
            exit 1
        fi
    done
    cp /etc/nginx/solitaire/tls.conf /etc/nginx/conf.d/tls.conf
fi
