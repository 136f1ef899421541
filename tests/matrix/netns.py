"""Linux network namespaces for tests: two machines joined by one cable, made and unmade by a test.

    with Network("hrfed") as net:          # namespaces <prefix>-<random>-a and -b, veth between them
        net.exec("a", ["python", ...])      # argv prefix to run a program in namespace a
        with net.entered("b"):              # this thread (and the threads it starts) now in b
            ...

Namespace "a" has 10.77.0.1/24 and "b" 10.77.0.2/24 on the two ends of a veth pair, and each its
own loopback; nothing else: no route out, no link to the namespace the test started in. Needs
root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2's `ip`; `Network.check()` says why not.

Leaving the `with` (even on an exception) kills every process still in either namespace and
deletes both namespaces (which removes the veth pair with them).
"""

import ctypes
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from contextlib import contextmanager

CLONE_NEWNET = 0x40000000
SUBNET = "10.77.0.0/24"
ADDRESSES = {"a": "10.77.0.1", "b": "10.77.0.2"}
_libc = ctypes.CDLL(None, use_errno=True)


class NetnsUnavailable(Exception):
    """Network namespaces cannot be made here (not root, no `ip`, ...)."""


def setns(fd):
    """Move the calling thread into the network namespace open at fd."""
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def ip(*args, check=True):
    done = subprocess.run(["ip", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise NetnsUnavailable(f"`ip {' '.join(args)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done


class Network:
    """Two network namespaces, "a" and "b", with a veth pair between them."""

    def __init__(self, prefix="hrfed"):
        tag = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.names = {side: f"{prefix}-{tag}-{side}" for side in ADDRESSES}
        self.created = []

    @staticmethod
    def check():
        """Raise NetnsUnavailable with the reason when this process cannot make namespaces."""
        if shutil.which("ip") is None:
            raise NetnsUnavailable("iproute2's `ip` is not installed")
        if os.geteuid() != 0:
            raise NetnsUnavailable(
                f"network namespaces need root (`ip netns add`); this runs as uid {os.geteuid()}"
            )

    def address(self, side):
        return ADDRESSES[side]

    def path(self, side):
        return f"/var/run/netns/{self.names[side]}"

    def exec(self, side, argv):
        """argv run inside namespace `side` (as `ip netns exec NS argv...`, which execs argv)."""
        return ["ip", "netns", "exec", self.names[side], *map(str, argv)]

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self):
        self.create()
        return self

    def __exit__(self, *exc):
        self.destroy()

    def create(self):
        self.check()
        try:
            for side, name in self.names.items():
                ip("netns", "add", name)
                self.created.append(name)
                ip("-n", name, "link", "set", "lo", "up")
            a, b = self.names["a"], self.names["b"]
            # Made straight inside the namespaces: no interface name in the test's own namespace.
            ip("link", "add", "hr0", "netns", a, "type", "veth", "peer", "name", "hr0", "netns", b)
            for side, name in self.names.items():
                ip("-n", name, "addr", "add", f"{ADDRESSES[side]}/24", "dev", "hr0")
                ip("-n", name, "link", "set", "hr0", "up")
            self.wait_link()
        except BaseException:
            self.destroy()
            raise

    def wait_link(self, timeout=10.0):
        """Until both ends of the cable are up (a veth may take a moment to go LOWER_UP)."""
        deadline = time.monotonic() + timeout
        while True:
            states = [ip("-n", name, "-o", "link", "show", "hr0").stdout for name in self.names.values()]
            if all("LOWER_UP" in s for s in states):
                return
            if time.monotonic() > deadline:
                raise NetnsUnavailable(f"the veth pair did not come up: {states}")
            time.sleep(0.05)

    def pids(self, name):
        done = ip("netns", "pids", name, check=False)
        return [int(p) for p in done.stdout.split() if p.isdigit()]

    def destroy(self):
        """Kill whatever still runs in the namespaces, then delete them. Never raises."""
        for name in reversed(self.created):
            for _ in range(50):
                pids = [p for p in self.pids(name) if p != os.getpid()]
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.1)
            ip("netns", "delete", name, check=False)
        self.created.clear()

    # -- this process ------------------------------------------------------------------------

    @contextmanager
    def entered(self, side):
        """The calling thread in namespace `side` for the block, then back where it was. Threads
        started meanwhile (an asyncio executor's) stay in `side` for their lifetime."""
        home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(self.path(side), os.O_RDONLY)
        try:
            setns(target)
            try:
                yield
            finally:
                setns(home)
        finally:
            os.close(target)
            os.close(home)

    def call(self, side, fn, *args, **kwargs):
        """fn(*args, **kwargs) on a new thread inside namespace `side`; its result or exception.
        (Blocking: wrap in asyncio.to_thread to await it.)"""
        result = {}

        def run():
            try:
                with self.entered(side):
                    result["value"] = fn(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                result["error"] = e

        thread = threading.Thread(target=run, name=f"netns-{side}")
        thread.start()
        thread.join()
        if "error" in result:
            raise result["error"]
        return result.get("value")
