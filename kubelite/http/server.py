"""Serving the REST API on a real socket, in the cluster's own event loop (uvicorn), with a kubeconfig.

Contract:
- :func:`serve` runs uvicorn's ``Server`` as a task of the running loop, so the operator under test (its
  aiohttp/httpx code, kopf, kubernetes_asyncio) and the cluster share one loop and one (virtual) clock. The
  socket is bound before the block is entered, so the URL is connectable at once.
- Loopback only by default (``host="127.0.0.1"``); ``port=0`` picks a free port.
- An admin bearer token is registered for the block (generated unless given) and written, with the URL, into
  ``kubeconfig`` if a path is given; ``tls=True`` serves a self-signed CA's server certificate for
  127.0.0.1/localhost/::1 (the kubeconfig carries the CA).
- Serving certificates are kept in a certificate directory and reused while valid, as kube-apiserver's
  ``--cert-dir`` (``SecureServingOptions.MaybeDefaultWithSelfSignedCerts``: ``apiserver.crt``/``.key`` are
  generated only when the directory has no readable pair). ``cert_dir`` defaults to a per-user cache
  (``$XDG_CACHE_HOME/kubelite/serving-certs``, else ``~/.cache/...``; the directory 0700, the key 0600), so only
  the first TLS serve on a machine pays for the key generation and the ``cryptography`` import (~0.1 s CPU);
  unlike upstream, a pair within a day of its expiry (30 days) is replaced. An unwritable cache falls back
  to a throwaway pair in the serve's temporary directory.
- With ``idle_grace > 0``, clients in other processes hold virtual time while they may still act
  (:mod:`kubelite.http.clients`).
- On exit every watch is closed, connections are shut down and the server task is awaited: nothing is left
  running. uvicorn's once-every-0.1-s housekeeping tick is replaced by a wait on exit, so an idle server adds
  no timers to the loop (virtual time can jump straight to the next real event).

Why uvicorn: HTTP/1.1 parsing, chunked streaming, keep-alive, flow control, TLS and slow-client handling are
what a well-kept server already gets right (h11 underneath); kubelite only writes the ASGI app.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import os
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from kubelite.http.app import ApiApp
from kubelite.http.clients import ClientActivity

__all__ = ["Endpoint", "default_cert_dir", "kubeconfig_yaml", "serve", "serving_certs", "uvicorn_server"]


class Endpoint(str):
    """The server's URL (``https://127.0.0.1:PORT``), with what a client needs to reach it."""

    token: str
    ca_file: str | None
    kubeconfig: str | None
    app: ApiApp
    port: int
    _task: asyncio.Task[None]

    def __new__(cls, url: str, *, token: str, ca_file: str | None, kubeconfig: str | None, app: ApiApp,
                port: int, task: asyncio.Task[None]) -> Endpoint:
        self = super().__new__(cls, url)
        self.token, self.ca_file, self.kubeconfig, self.app, self.port = token, ca_file, kubeconfig, app, port
        self._task = task
        return self

    async def wait_stopped(self) -> None:
        """Until the server stops (``signals=True``: on SIGINT/SIGTERM)."""
        await asyncio.shield(self._task)

    @property
    def url(self) -> str:
        return str(self)


def kubeconfig_yaml(url: str, token: str, *, ca_pem: bytes | None = None, namespace: str = "default") -> str:
    """A kubeconfig with one cluster, one token user and one current context named ``kubelite``."""
    import yaml

    cluster: dict[str, Any] = {"server": url}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    doc = {
        "apiVersion": "v1", "kind": "Config", "preferences": {},
        "clusters": [{"name": "kubelite", "cluster": cluster}],
        "users": [{"name": "kubelite-admin", "user": {"token": token}}],
        "contexts": [{"name": "kubelite", "context": {"cluster": "kubelite", "user": "kubelite-admin",
                                                      "namespace": namespace}}],
        "current-context": "kubelite",
    }
    return str(yaml.safe_dump(doc, sort_keys=False))


#: a cached pair is replaced when it expires within this many seconds
_RENEW_BEFORE = 86_400.0
_CERT_FILES = ("apiserver.crt", "apiserver.key", "ca.crt", "expires")


def default_cert_dir() -> Path:
    """The per-user directory :func:`serve` keeps its serving certificates in."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kubelite" / "serving-certs"


def _cached_pair(directory: Path) -> tuple[Path, Path, bytes] | None:
    """The pair in ``directory`` if it is whole and valid for more than a day, else None."""
    try:
        expires = float((directory / "expires").read_text())
        ca_pem = (directory / "ca.crt").read_bytes()
        cert, key = directory / "apiserver.crt", directory / "apiserver.key"
        if not (cert.is_file() and key.is_file() and ca_pem):
            return None
    except (OSError, ValueError):
        return None
    if expires - _RENEW_BEFORE <= time.time():  # noqa: TID251 - certificate validity is real-clock business
        return None
    return cert, key, ca_pem


def serving_certs(cert_dir: Path, fallback: Path) -> tuple[Path, Path, bytes]:
    """(cert file, key file, CA PEM) of the serving pair in ``cert_dir``, generated there when it has none (or
    only one about to expire); generated into ``fallback`` when ``cert_dir`` cannot be written. Concurrent
    processes are safe: a new pair is written to a private directory and renamed into place whole."""
    found = _cached_pair(cert_dir)
    if found is not None:
        return found
    try:
        cert_dir.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=".new-", dir=cert_dir.parent))  # mode 0700
    except OSError:
        return _self_signed(fallback)
    _self_signed(fresh)
    stale = None
    if cert_dir.exists():  # expired or incomplete: move it aside, then put the new pair in its place
        stale = Path(tempfile.mkdtemp(prefix=".stale-", dir=cert_dir.parent))
        with contextlib.suppress(OSError):
            os.replace(cert_dir, stale / "pair")
    try:
        os.rename(fresh, cert_dir)
    except OSError:  # another process renamed its pair into place first: use that one
        shutil.rmtree(fresh, ignore_errors=True)
    if stale is not None:
        shutil.rmtree(stale, ignore_errors=True)
    found = _cached_pair(cert_dir)
    return found if found is not None else _self_signed(fallback)


def _self_signed(directory: Path) -> tuple[Path, Path, bytes]:
    """A CA and a server certificate for 127.0.0.1 / localhost / ::1 (cert file, key file, CA PEM), written to
    ``directory`` with the certificate's expiry (epoch seconds) in ``expires``."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    # certificate validity is wall-clock business (clients check it against their own clock)
    now = datetime.datetime.now(datetime.UTC)  # noqa: TID251 - TLS validity is checked on clients' real clocks
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubelite-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                       x509.IPAddress(ipaddress.ip_address("::1"))])
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(san, critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_pem = ca.public_bytes(serialization.Encoding.PEM)
    cert_file, key_file = directory / "apiserver.crt", directory / "apiserver.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_file.chmod(0o600)
    (directory / "ca.crt").write_bytes(ca_pem)
    (directory / "expires").write_text(repr(cert.not_valid_after_utc.timestamp()))
    return cert_file, key_file, ca_pem


def _write(path: str, text: str) -> None:
    Path(path).write_text(text)


class _CoalescingTransport:
    """A transport that sends everything written in one event-loop step as one ``send``.

    uvicorn writes a response's head and its body with two ``transport.write`` calls, and asyncio sends each
    at once: two syscalls (and two loopback segments, with TCP_NODELAY) per response, the largest single cost
    of a small GET. Writes are gathered and flushed by a ``call_soon``, i.e. before the loop next polls, so a
    streamed chunk (a watch event) still leaves in the step that wrote it. Everything else is the transport's.
    """

    __slots__ = ("_flush_handle", "_loop", "_pending", "_transport", "sent")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._flush_handle: asyncio.Handle | None = None
        #: told of each send (``ClientActivity.sent``: hold time until the client has read it)
        self.sent: Callable[[Any], None] | None = None

    def write(self, data: bytes) -> None:
        self._pending.append(data)
        if self._flush_handle is None:
            self._flush_handle = self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        if self._pending:
            data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)
                if self.sent is not None:
                    self.sent(self)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


#: Go net/http's DefaultMaxHeaderBytes, which kube-apiserver serves with: a request line and headers
#: longer than this get 431 and the connection is closed (httptools itself sets no limit).
MAX_HEADER_BYTES = 1 << 20
_HEADERS_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
                      b"connection: close\r\ncontent-length: 35\r\n\r\n431 Request Header Fields Too Large")


def _protocol_class(activity: ClientActivity | None = None) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol (a C parser: ~2.5x h11's requests/s), on a coalescing transport, with
    Go's header size limit; each connection's traffic reported to ``activity`` when its client is one the clock
    cannot see (:mod:`kubelite.http.clients`)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class _Protocol(HttpToolsProtocol):
        _in_head = True
        _head_bytes = 0
        _activity: ClientActivity | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            coalescing = _CoalescingTransport(transport, self.loop)
            self.transport = coalescing  # type: ignore[assignment]
            if activity is not None and activity.connection_made(coalescing):
                self._activity = activity
                coalescing.sent = activity.sent

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            if self._activity is not None:
                self._activity.connection_lost(self.transport)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._activity is not None:
                self._activity.response_complete()

        def on_message_begin(self) -> None:
            self._in_head, self._head_bytes = True, 0
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._in_head = False
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head, self._head_bytes = True, 0

        def data_received(self, data: bytes) -> None:
            if self._activity is not None:
                self._activity.received()
            super().data_received(data)
            # bytes of a head still incomplete after parsing them (an over-count of at most one read)
            if self._in_head and not self.transport.is_closing():
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEADER_BYTES:
                    self.transport.write(_HEADERS_TOO_LARGE)
                    self.transport.close()

    return _Protocol


def uvicorn_server(app: Any, *, signals: bool = False, log_level: str = "warning",
                   activity: ClientActivity | None = None, **ssl: Any) -> Any:
    """The uvicorn ``Server`` that :func:`serve` runs ``app`` on (bench/http_api.py measures its floor with it).

    httptools parser on a coalescing transport; no lifespan, access log, proxy-header rewriting, websockets,
    Date or Server headers (kube-apiserver sends Date; nothing in the clients reads it); keep-alive for an hour.
    """
    import uvicorn

    config = uvicorn.Config(
        app, lifespan="off", log_level=log_level, access_log=False, http=_protocol_class(activity), ws="none",
        proxy_headers=False, timeout_keep_alive=3600, timeout_graceful_shutdown=5, date_header=False,
        server_header=False, **ssl,
    )

    class _Server(uvicorn.Server):
        """uvicorn's Server, waiting for exit instead of ticking every 0.1 s (see the module docstring)."""

        def __init__(self, config: Any) -> None:
            super().__init__(config)
            self.exit_event = asyncio.Event()

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if not signals:
                yield
                return
            with super().capture_signals():
                yield

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_soon_threadsafe(self.exit_event.set)

        async def main_loop(self) -> None:
            await self.on_tick(0)  # default headers
            await self.exit_event.wait()

        def stop(self) -> None:
            self.should_exit = True
            self.exit_event.set()

    return _Server(config)


@contextlib.asynccontextmanager
async def serve(cluster: Any, *, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                tls: bool = False, kubeconfig: str | os.PathLike[str] | None = None, signals: bool = False,
                log_level: str = "warning", cert_dir: str | os.PathLike[str] | None = None,
                idle_grace: float = 0.0) -> AsyncIterator[Endpoint]:
    """Serve ``cluster``'s API on ``host:port`` for the block; yields the :class:`Endpoint` (a URL string).

    ``cert_dir``: where TLS serving certificates are kept and reused (default: :func:`default_cert_dir`).
    ``idle_grace``: real seconds after a client's last activity during which virtual time does not jump, with
    the other holds of :mod:`kubelite.http.clients` for clients in other processes (``kubelite serve
    --virtual-time --idle-grace``); 0 (the default in tests, whose clients the clock sees already) turns them
    off."""
    token = token or secrets.token_urlsafe(24)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio only disables Nagle (TCP_NODELAY) on sockets that say they are TCP, and
    # a Nagle-delayed segment waits for the peer's delayed ACK, a kernel timer the virtual clock cannot see.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    bound_port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="kubelite-serve-") as tmp:
        ssl: dict[str, Any] = {}
        ca_pem: bytes | None = None
        ca_file: str | None = None
        if tls:
            cert_file, key_file, ca_pem = serving_certs(
                Path(cert_dir) if cert_dir is not None else default_cert_dir(), Path(tmp))
            ssl = {"ssl_certfile": str(cert_file), "ssl_keyfile": str(key_file)}
            ca_file = str(cert_file.parent / "ca.crt")
        scheme = "https" if tls else "http"
        url_host = f"[{host}]" if family == socket.AF_INET6 else host
        url = f"{scheme}://{url_host}:{bound_port}"
        app = ApiApp(cluster, admin_token=token, server_address=f"{url_host}:{bound_port}")
        activity = ClientActivity(idle_grace=idle_grace)
        server = uvicorn_server(app, signals=signals, log_level=log_level, activity=activity, **ssl)
        task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name="kubelite-http-server")
        kube_path: str | None = None
        if kubeconfig is not None:
            kube_path = str(kubeconfig)
            _write(kube_path, kubeconfig_yaml(url, token, ca_pem=ca_pem))
        try:
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError("the HTTP server stopped during startup")
                await cluster.clock.sleep(0)
            yield Endpoint(url, token=token, ca_file=ca_file, kubeconfig=kube_path, app=app, port=bound_port,
                           task=task)
        finally:
            app.close_watches()
            server.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            activity.close()
            sock.close()
            cluster.apiserver.authenticator.remove_token(token)
