#!/usr/bin/env bash
# "A phone on the same network opens the printed link" (issue 26), checked from another
# network stack: a client in its own network namespace (as a phone is another host),
# joined to this machine by a virtual Ethernet pair, opens the address `kocka web --lan`
# prints, in headless Chromium at 360 x 800, and a position link with a hint. Nothing
# leaves the machine: the client's only link is the veth pair, and the server's LAN
# address is delivered locally. Not a test (it needs root for the namespace, and the
# brief keeps the test suite on loopback): run it by hand.
#
#   sudo scripts/lan_check.sh [OUT_DIR]       (needs ip, curl, chromium, the kockapoker table)
#
# Prints the address, the status of a seat request without the token (401) and of the page (200),
# and writes OUT_DIR/lan-start.png and OUT_DIR/lan-hint.png.
set -euo pipefail
out=${1:-/tmp/kocka-lan-check}
mkdir -p "$out"
ns=kocka-lan-$$
port=${KOCKA_LAN_PORT:-8093}
kocka=${KOCKA:-kocka}
log=$(mktemp)
cleanup() {
    [[ -n ${server:-} ]] && kill "$server" 2>/dev/null || true
    ip link del kl0-$$ 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -f "$log"
}
trap cleanup EXIT
ip netns add "$ns"
ip link add kl0-$$ type veth peer name kl1-$$
ip link set kl1-$$ netns "$ns"
ip addr add 10.77.0.1/24 dev kl0-$$
ip link set kl0-$$ up
ip netns exec "$ns" ip addr add 10.77.0.2/24 dev kl1-$$
ip netns exec "$ns" ip link set kl1-$$ up
ip netns exec "$ns" ip route add default via 10.77.0.1

"$kocka" web --lan --port "$port" 2>"$log" &
server=$!
for _ in $(seq 50); do grep -q '#token=' "$log" && break; sleep 0.2; done
url=$(grep -m1 -oE 'http://[^ ]+#token=[^ ]+' "$log")
echo "printed: $url"
base=${url%%#*}
token=${url#*#}
client() { ip netns exec "$ns" "$@"; }
echo "a seat request without the token: $(client curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" --data "{\"type\": \"hello\"}" "$base" || true)"
echo "the page (a browser asks for text/html): $(client curl -s -o /dev/null -w "%{http_code}" -H "Accept: text/html" "$base")"
shot() {
    client chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=360,800 \
        --virtual-time-budget=10000 --screenshot="$1" "$2" >/dev/null 2>&1
    echo "screenshot: $1"
}
shot "$out/lan-start.png" "$url"
shot "$out/lan-hint.png" "${base}?game=kockapoker&dice=11346&roll=1#${token}"
