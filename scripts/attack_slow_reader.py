#!/usr/bin/env python3
"""The slow-reader attack on the HTTP seat (issue 24, point 2), on loopback (127.0.0.1) only.

Starts the seat's HTTP server in this process, twice: with room for every connection
(``max_connections=1024``), then with ``--max-connections`` (default 40); each time it
then opens ``--connections`` (default 38) slow readers: each pipelines ``--pipelined``
(default 2,000) ``GET /`` requests and never reads an answer. While they are open, and
again once the server has dropped them, ``--normal`` (default 80) ordinary ``GET /``
requests are sent one after another, each on a connection of its own.

Prints how long the server took to drop each slow reader (from its last request sent;
the target is under 10 s), the most bytes the server had queued for them at once (in
the process: asyncio's write buffers), and how many ordinary requests were answered 200
or 503 while the slow readers were held and after. Exits 1 when a slow reader was not
dropped within 10 s or an ordinary request after the drop was not answered 200.
Everything is bounded: it gives up after ``--give-up`` seconds (default 30).

    python scripts/attack_slow_reader.py
    python scripts/attack_slow_reader.py --connections 8 --pipelined 500 --write-timeout 2
"""
from __future__ import annotations

import argparse
import http.client
import socket
import struct
import sys
import threading
import time

HOST = "127.0.0.1"  # loopback only, by design
TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # Linux tcp_info states: reset by the server, or closed by it
TARGET_SECONDS = 10.0


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has reset or closed ``sock`` (read from TCP_INFO, without
    reading any of the answers queued on it)."""
    state = struct.unpack("B", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]
    return state in (TCP_CLOSE, TCP_CLOSE_WAIT)


def slow_reader(port: int, pipelined: int, rcvbuf: int, budget: float) -> tuple[socket.socket, float]:
    """A connection that sends ``pipelined`` requests (as many as the server takes
    within ``budget`` seconds) and will never read; returns it and when it last sent."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect((HOST, port))
    data = f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode() * pipelined
    sock.setblocking(False)
    end, last = time.monotonic() + budget, time.monotonic()
    while data and time.monotonic() < end:
        try:
            sent = sock.send(data)
            data, last = data[sent:], time.monotonic()
        except BlockingIOError:  # the server reads no further while its answers wait
            time.sleep(0.01)
        except OSError:
            break
    return sock, last


def normal_requests(port: int, count: int) -> dict[int, int]:
    """Statuses of ``count`` ordinary ``GET /`` (0: no answer)."""
    statuses: dict[int, int] = {}
    for _ in range(count):
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=5)
            conn.request("GET", "/")
            status = conn.getresponse().status
            conn.close()
        except OSError:
            status = 0
        statuses[status] = statuses.get(status, 0) + 1
    return statuses


def attack(args: argparse.Namespace, max_connections: int) -> dict:
    """One run against a fresh server: the slow readers, and ordinary requests while
    they are held and after the server has dropped them."""
    from kocka.agents.frontends.seat.http import SeatHTTPServer, http_options
    from kocka.agents.frontends.seat.protocol import Seat

    options = {"max_connections": max_connections}
    if args.write_timeout is not None:
        options["write_timeout"] = args.write_timeout
    server = SeatHTTPServer(Seat(), http_options(f"{HOST}:0", **options))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    readers: list[tuple[socket.socket, float]] = []
    try:
        normal_requests(port, 1)  # hello made once, before the attack
        started = time.monotonic()
        readers = [slow_reader(port, args.pipelined, args.rcvbuf, budget=2.0) for _ in range(args.connections)]
        during = normal_requests(port, args.normal)
        dropped: dict[int, float] = {}
        most_queued = 0
        while len(dropped) < len(readers) and time.monotonic() - started < args.give_up:
            connections = list(server._server.server_state.connections)
            most_queued = max(most_queued, sum(c.transport.get_write_buffer_size() for c in connections
                                               if c.transport is not None and not c.transport.is_closing()))
            for index, (sock, last) in enumerate(readers):
                if index not in dropped and closed_by_server(sock):
                    dropped[index] = time.monotonic() - last
            time.sleep(0.05)
        after = normal_requests(port, args.normal)
    finally:
        for sock, _ in readers:
            sock.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    return {"times": sorted(dropped.values()), "held": len(readers) - len(dropped), "queued": most_queued,
            "during": during, "after": after}


def report(title: str, args: argparse.Namespace, result: dict) -> bool:
    times = result["times"]
    print(title)
    if times:
        print(f"  slow readers closed by the server: {len(times)}, {times[0]:.1f} .. {times[-1]:.1f} s after their "
              f"last request (target < {TARGET_SECONDS:g} s); still open after {args.give_up:g} s: {result['held']}")
    else:
        print(f"  no slow reader closed within {args.give_up:g} s")
    print(f"  most output queued in the server process at once: {result['queued']} bytes")
    print(f"  ordinary GET / while they were open: {result['during']}; after they were closed: {result['after']}")
    return result["held"] == 0 and bool(times) and times[-1] < TARGET_SECONDS and result["after"] == {200: args.normal}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=38)
    parser.add_argument("--pipelined", type=int, default=2000)
    parser.add_argument("--normal", type=int, default=80)
    parser.add_argument("--max-connections", type=int, default=40, help="the server's, in the crowded run")
    parser.add_argument("--write-timeout", type=float, default=None, help="the server's (default: its own default)")
    parser.add_argument("--rcvbuf", type=int, default=0, help="the slow readers' SO_RCVBUF (0: the system's)")
    parser.add_argument("--give-up", type=float, default=30.0, help="seconds each run waits at most")
    args = parser.parse_args(argv)

    shape = f"{args.connections} slow readers x {args.pipelined} pipelined GET /, never read"
    # with room for them all, the slow readers are held until the write timeout drops them;
    # under max_connections uvicorn answers 503 once they hold the limit (each holds two tasks)
    roomy = report(f"{shape} (max_connections=1024):", args, attack(args, 1024))
    crowded = report(f"{shape} (max_connections={args.max_connections}):", args, attack(args, args.max_connections))
    print("OK" if roomy and crowded else "FAILED")
    return 0 if roomy and crowded else 1


if __name__ == "__main__":
    sys.exit(main())
