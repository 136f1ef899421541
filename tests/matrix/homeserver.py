"""A throwaway Synapse homeserver for tests: loopback only, SQLite in a temp dir.

    with Homeserver(tmpdir) as hs:
        user_id, token = hs.register("ann", "secret")
        ... talk to hs.url ...

It runs in the interpreter that imports this module (the test venv), writes its own config,
relaxes every rate limit so tests never wait on a 429, and leaves `homeserver.log` in tmpdir.
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


def free_port():
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Homeserver:
    """One Synapse process, started on enter and stopped on exit."""

    def __init__(self, tmpdir, server_name="localhost"):
        self.dir = Path(tmpdir)
        self.server_name = server_name
        self.port = free_port()
        self.shared_secret = secrets.token_hex(16)
        self.log_path = self.dir / "homeserver.log"
        self.proc = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

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
            [sys.executable, "-m", "synapse.app.homeserver", "--config-path", str(config)],
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
        return {
            "server_name": self.server_name,
            "public_baseurl": self.url + "/",
            "pid_file": str(self.dir / "homeserver.pid"),
            "listeners": [
                {
                    "port": self.port,
                    "bind_addresses": ["127.0.0.1"],
                    "type": "http",
                    "tls": False,
                    "x_forwarded": False,
                    "resources": [{"names": ["client"], "compress": False}],
                }
            ],
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
