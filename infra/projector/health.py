"""`senki project --health-port`: /healthz for Kubernetes probes of the projector pod.

A standby projector is healthy too: it is doing its job (waiting), and a rolling update must
see the new pod ready while the old one still holds the lock.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from infra.projector.runner import Projector

HEALTHY = frozenset({"starting", "standby", "active"})


def serve_health(port: int, projector: Projector, host: str = "0.0.0.0") -> ThreadingHTTPServer:
    """Answer GET /healthz on a daemon thread: 200 while the projector runs, 503 once stopped."""

    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/healthz":
                self.send_error(404)
                return
            state = projector.state
            body = json.dumps({"state": state}).encode()
            self.send_response(200 if state in HEALTHY else 503)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # probes every few seconds would drown the projector's own log

    server = ThreadingHTTPServer((host, port), Health)
    threading.Thread(target=server.serve_forever, name="senki-health", daemon=True).start()
    return server
