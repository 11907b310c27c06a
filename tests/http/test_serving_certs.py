"""TLS serving certificates kept in a certificate directory and reused, as kube-apiserver's ``--cert-dir``
(``SecureServingOptions.MaybeDefaultWithSelfSignedCerts`` generates ``apiserver.crt``/``.key`` only when the
directory has no readable pair). Issue #11/#17 cold start: a TLS serve after the first on a machine neither
generates keys nor imports ``cryptography``."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import kubelite
from kubelite.http.server import default_cert_dir, serving_certs


def _read(path: str | None) -> bytes:
    return Path(str(path)).read_bytes()


async def _version(url: str, ca_file: str | None, token: str) -> dict[str, object]:
    """GET /version over TLS, verifying the server against ``ca_file`` (and its name, 127.0.0.1)."""
    ctx = ssl.create_default_context(cafile=ca_file)
    async with httpx.AsyncClient(verify=ctx, headers={"Authorization": f"Bearer {token}"}) as client:
        resp = await client.get(f"{url}/version")
        resp.raise_for_status()
        out: dict[str, object] = resp.json()
        return out


async def test_a_second_tls_serve_reuses_the_pair_and_clients_verify_it(tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as c:
        async with c.serve(tls=True, cert_dir=certs) as url:
            first_ca = _read(url.ca_file)
            assert url.ca_file == str(certs / "ca.crt")
            assert "gitVersion" in await _version(url, url.ca_file, url.token)
        assert sorted(p.name for p in certs.iterdir()) == ["apiserver.crt", "apiserver.key", "ca.crt", "expires"]
        assert (certs / "apiserver.key").stat().st_mode & 0o077 == 0  # the key is the owner's only
        key_mtime = (certs / "apiserver.key").stat().st_mtime_ns
        async with c.serve(tls=True, cert_dir=certs) as url:
            assert _read(url.ca_file) == first_ca
            assert "gitVersion" in await _version(url, url.ca_file, url.token)
        assert (certs / "apiserver.key").stat().st_mtime_ns == key_mtime


@pytest.mark.parametrize("damage", ["expiring", "incomplete", "garbled expiry"])
def test_a_pair_about_to_expire_or_incomplete_is_replaced(tmp_path: Path, damage: str) -> None:
    certs = tmp_path / "certs"
    _, _, ca = serving_certs(certs, tmp_path / "fallback")
    if damage == "expiring":
        (certs / "expires").write_text(repr(time.time() + 3600))  # within the day before expiry
    elif damage == "incomplete":
        (certs / "apiserver.key").unlink()
    else:
        (certs / "expires").write_text("soon")
    cert, key, new_ca = serving_certs(certs, tmp_path / "fallback")
    assert new_ca != ca and cert.parent == key.parent == certs
    assert float((certs / "expires").read_text()) > time.time() + 29 * 86_400
    assert not (tmp_path / "fallback").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["certs"]  # no temporary directory left behind


def test_an_unwritable_cert_dir_falls_back_to_a_throwaway_pair(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    fallback = tmp_path / "fallback"
    fallback.mkdir()
    cert, key, ca = serving_certs(tmp_path / "file" / "certs", fallback)  # its parent is a file
    assert cert.parent == key.parent == fallback and ca == (fallback / "ca.crt").read_bytes()


def test_the_default_cert_dir_is_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cert_dir() == tmp_path / "kubelite" / "serving-certs"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cert_dir() == Path(os.path.expanduser("~")) / ".cache" / "kubelite" / "serving-certs"


_FRESH_PROCESS = """
import asyncio, json, sys
import kubelite

async def main():
    async with kubelite.Cluster(seed=1, controllers=False, scheduler=False, network=False) as c:
        async with c.serve(tls=True, cert_dir=sys.argv[1]) as url:
            pass
    print(json.dumps({"cryptography": "cryptography" in sys.modules}))

asyncio.run(main())
"""


def test_a_fresh_process_serving_a_cached_pair_does_not_import_cryptography(tmp_path: Path) -> None:
    certs = tmp_path / "certs"
    runs = [json.loads(subprocess.run([sys.executable, "-c", _FRESH_PROCESS, str(certs)], capture_output=True,
                                      text=True, check=True).stdout) for _ in range(2)]
    assert runs == [{"cryptography": True}, {"cryptography": False}]  # generated once, then only read
