#!/usr/bin/env bash
# Debian's nginx in front of two `dicehost serve` processes on loopback, routing each
# room to a process by consistent hashing of its id (`/ws?room=ID`), as docs/scaling.md
# configures it. Installs nginx-light when it is missing (as root).
#   loadtest/nginx-front.sh start DIR FRONT_PORT PORT_A PORT_B
#   loadtest/nginx-front.sh stop DIR
set -euo pipefail
verb=$1 dir=$2
case "$verb" in
stop)
  [ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  exit 0 ;;
start) front=$3 a_port=$4 b_port=$5 ;;
*) echo "nginx-front.sh: start DIR FRONT A B, or stop DIR" >&2; exit 2 ;;
esac
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "loadtest: installing nginx-light" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
  else
    echo "loadtest: nginx is missing: sudo apt-get install nginx-light" >&2; exit 1
  fi
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
mkdir -p "$dir"
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4000; }
http {
  access_log off;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir;
  uwsgi_temp_path $dir; scgi_temp_path $dir;
  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  upstream dicehost {
    hash \$arg_room consistent;
    server 127.0.0.1:$a_port;
    server 127.0.0.1:$b_port;
  }
  server {
    listen 127.0.0.1:$front;
    location / {
      proxy_pass http://dicehost;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      proxy_read_timeout 1h;
    }
  }
}
CONF
"$nginx_bin" -c "$dir/nginx.conf" -p "$dir"
for _ in $(seq 50); do [ -f "$dir/nginx.pid" ] && break; sleep 0.1; done
