"""A throwaway Synapse homeserver for tests: loopback only, SQLite in a temp dir.

    with Homeserver(tmpdir) as hs:
        user_id, token = hs.register("ann", "secret")
        ... talk to hs.url ...

It runs in the interpreter that imports this module (the test venv), writes its own config,
relaxes every rate limit so tests never wait on a 429, and leaves `homeserver.log` in tmpdir.

By default it does not federate. With `federation=Federation(...)` it also listens for the
server-server API over TLS (a self-signed certificate it makes; peers do not verify it), talks to
the listed peers only, and lets outbound federation reach the given private address ranges:

    Homeserver(tmpdir, "10.77.0.1:8448", port=8008, launcher=["ip", "netns", "exec", "ns-a"],
               federation=Federation("10.77.0.1", 8448, peers=["10.77.0.2:8448"],
                                     allow=["10.77.0.0/24"]))
"""

import hashlib
import hmac
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from signedjson.key import generate_signing_key, write_signing_keys

START_TIMEOUT = 90.0
# Far above anything a test does, for every limit Synapse reads (synapse/config/ratelimiting.py).
LAVISH = {"per_second": 10000, "burst_count": 100000}
RATE_LIMITS = {
    "rc_message": LAVISH,
    "rc_registration": LAVISH,
    "rc_registration_token_validity": LAVISH,
    "rc_login": {"address": LAVISH, "account": LAVISH, "failed_attempts": LAVISH},
    "rc_admin_redaction": LAVISH,
    "rc_joins": {"local": LAVISH, "remote": LAVISH},
    "rc_joins_per_room": LAVISH,
    "rc_key_requests": LAVISH,
    "rc_3pid_validation": LAVISH,
    "rc_invites": {"per_room": LAVISH, "per_user": LAVISH, "per_issuer": LAVISH},
    "rc_third_party_invite": LAVISH,
    "rc_media_create": LAVISH,
    "rc_presence": {"per_user": LAVISH},
    "rc_delayed_event_mgmt": LAVISH,
    "rc_room_creation": LAVISH,
    "rc_reports": LAVISH,
    "rc_user_directory": LAVISH,
    "rc_profile": LAVISH,
}


@dataclass
class Federation:
    """The TLS listener for the server-server API, and whom to federate with.

    bind/port: where peers reach this server (its server name should be "bind:port" when it is
    an IP literal). peers: the server names federation is allowed with (Synapse's
    federation_domain_whitelist; this server's own name is added). allow: address ranges that
    outbound federation may reach although Synapse blocks private ranges by default (cut out of
    ip_range_blacklist and put in ip_range_whitelist)."""

    bind: str
    port: int = 8448
    peers: list = field(default_factory=list)
    allow: list = field(default_factory=list)


# Retries soon: Synapse's default waits 10 minutes before trying a peer that failed once again.
FEDERATION_RETRIES = {
    "destination_min_retry_interval": "1s",
    "destination_retry_multiplier": 1,
    "destination_max_retry_interval": "2s",
    "max_short_retry_delay": 500,  # ms
    "max_long_retry_delay": "2s",
}
# Inbound federation is never slowed down or refused (synapse/config/ratelimiting.py).
FEDERATION_RATE = {
    "window_size": 1000,
    "sleep_limit": 100000,
    "sleep_delay": 1,
    "reject_limit": 100000,
    "concurrent": 1000,
}


def blocklist_without(allowed):
    """Synapse's default blocklist of outbound addresses (private ranges and the like) less the
    `allowed` ranges."""
    from netaddr import IPSet
    from synapse.config.server import DEFAULT_IP_RANGE_BLOCKLIST

    kept = IPSet(DEFAULT_IP_RANGE_BLOCKLIST) - IPSet(allowed)
    return [str(cidr) for cidr in kept.iter_cidrs()]


def listener(port, bind, tls, resource):
    """One of Synapse's HTTP listeners, serving `resource` (client, federation)."""
    return {
        "port": port,
        "bind_addresses": [bind],
        "type": "http",
        "tls": tls,
        "x_forwarded": False,
        "resources": [{"names": [resource], "compress": False}],
    }


def free_port():
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Homeserver:
    """One Synapse process, started on enter and stopped on exit."""

    def __init__(
        self, tmpdir, server_name="localhost", *, port=None, bind="127.0.0.1", launcher=(), federation=None
    ):
        """port/bind: the client API's listener (a free loopback port by default). launcher: an
        argv prefix Synapse is started with (e.g. `ip netns exec NS`). federation: a Federation,
        or None for a homeserver that federates with nobody."""
        self.dir = Path(tmpdir)
        self.server_name = server_name
        self.bind = bind
        self.port = port or free_port()
        self.launcher = list(launcher)
        self.federation = federation
        self.shared_secret = secrets.token_hex(16)
        self.log_path = self.dir / "homeserver.log"
        self.proc = None

    @property
    def url(self):
        return f"http://{self.bind}:{self.port}"

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self):
        """Write the config, start Synapse and wait until its client API answers."""
        self.dir.mkdir(parents=True, exist_ok=True)
        config = self.write_config()
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [*self.launcher, sys.executable, "-m", "synapse.app.homeserver", "--config-path", config],
            cwd=self.dir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Synapse exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                self.get("/_matrix/client/versions", timeout=2)
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.1)
        raise TimeoutError(f"Synapse did not answer within {START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def stop(self):
        """Terminate Synapse (kill it after 10 s); the log stays."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def log_tail(self, lines=60):
        return tail_of(self.log_path, lines, "(no homeserver log)")

    # -- configuration -----------------------------------------------------------------------

    def write_config(self):
        """homeserver.yaml, its logging config and signing key; returns the config's path."""
        key_path = self.dir / "signing.key"
        if not key_path.exists():
            with open(key_path, "w") as f:
                write_signing_keys(f, [generate_signing_key("a_test")])
        log_config = self.dir / "log.yaml"
        log_config.write_text(yaml.safe_dump(self.logging_config()))
        path = self.dir / "homeserver.yaml"
        path.write_text(yaml.safe_dump(self.config(key_path, log_config)))
        return path

    def config(self, key_path, log_config):
        config = self.base_config(key_path, log_config)
        if self.federation:
            config.update(self.federation_config())
        return config

    def federation_config(self):
        """What federating with the peers of self.federation takes (over base_config)."""
        fed = self.federation
        cert, key = self.write_tls_certificate(fed.bind)
        return {
            "listeners": [
                *self.base_listeners(),
                listener(fed.port, fed.bind, tls=True, resource="federation"),
            ],
            "tls_certificate_path": str(cert),
            "tls_private_key_path": str(key),
            "federation_verify_certificates": False,
            "federation_domain_whitelist": sorted({self.server_name, *fed.peers}),
            # A server name that is an IP literal is checked against the blocklist alone (the
            # whitelist is not consulted: synapse/http/matrixfederationclient.py wraps its agent
            # in BlocklistingAgentWrapper(ip_blocklist=...)), so the allowed ranges are cut out
            # of Synapse's default blocklist as well as whitelisted.
            "ip_range_blacklist": blocklist_without(fed.allow),
            "ip_range_whitelist": list(fed.allow),
            "trusted_key_servers": [],
            "federation": FEDERATION_RETRIES,
            "rc_federation": FEDERATION_RATE,
        }

    def write_tls_certificate(self, host):
        """A self-signed certificate for host (an IP or a name) and its key; returns the paths."""
        import datetime
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        cert_path, key_path = self.dir / "tls.crt", self.dir / "tls.key"
        if cert_path.exists() and key_path.exists():
            return cert_path, key_path
        key = ec.generate_private_key(ec.SECP256R1())
        try:
            alt = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alt = x509.DNSName(host)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .sign(key, hashes.SHA256())
        )
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )
        key_path.chmod(0o600)
        return cert_path, key_path

    def base_listeners(self):
        return [listener(self.port, self.bind, tls=False, resource="client")]

    def base_config(self, key_path, log_config):
        return {
            "server_name": self.server_name,
            "public_baseurl": self.url + "/",
            "pid_file": str(self.dir / "homeserver.pid"),
            "listeners": self.base_listeners(),
            "database": {"name": "sqlite3", "args": {"database": str(self.dir / "homeserver.db")}},
            "log_config": str(log_config),
            "media_store_path": str(self.dir / "media"),
            "signing_key_path": str(key_path),
            "registration_shared_secret": self.shared_secret,
            "macaroon_secret_key": secrets.token_hex(16),
            "form_secret": secrets.token_hex(16),
            "enable_registration": False,
            "report_stats": False,
            "trusted_key_servers": [],
            "suppress_key_server_warning": True,
            "federation_domain_whitelist": [],
            "url_preview_enabled": False,
            "enable_metrics": False,
            "presence": {"enabled": False},
            "bcrypt_rounds": 4,
            **RATE_LIMITS,
        }

    def logging_config(self):
        return {
            "version": 1,
            "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
            "handlers": {
                "stderr": {
                    "class": "logging.StreamHandler",
                    "formatter": "plain",
                    "stream": "ext://sys.stderr",
                }
            },
            "loggers": {"synapse.storage.SQL": {"level": "WARNING"}},
            "root": {"level": "INFO", "handlers": ["stderr"]},
            "disable_existing_loggers": False,
        }

    # -- HTTP --------------------------------------------------------------------------------

    def get(self, path, timeout=10):
        with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
            return json.load(r)

    def post(self, path, body, timeout=10):
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"POST {path}: {e.code} {e.read().decode(errors='replace')}") from e

    # -- accounts ----------------------------------------------------------------------------

    def register(self, user, password, admin=False):
        """Create an account with the shared-secret admin API; returns (user_id, access_token)."""
        path = "/_synapse/admin/v1/register"
        nonce = self.get(path)["nonce"]
        mac = hmac.new(self.shared_secret.encode(), digestmod=hashlib.sha1)
        for part in (nonce, user, password):
            mac.update(part.encode() + b"\x00")
        mac.update(b"admin" if admin else b"notadmin")
        answer = self.post(
            path,
            {
                "nonce": nonce,
                "username": user,
                "password": password,
                "admin": admin,
                "mac": mac.hexdigest(),
            },
        )
        return answer["user_id"], answer["access_token"]


def tail_of(path, lines, missing):
    """The last `lines` lines of a log file, or `missing` when there is none."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return missing
    return "\n".join(text.splitlines()[-lines:])
