#!/usr/bin/env python3
"""End to end across federation: the referee on one homeserver, the players on another.

Two throwaway Synapses, each in a Linux network namespace of its own that this test makes, joined
by one veth pair and nothing else:

    namespace a: Synapse A "10.77.0.1:8448"   <- veth ->   namespace b: Synapse B "10.77.0.2:8448"
      client API on a's 127.0.0.1                           client API on b's 127.0.0.1
      the GM's account, `houserule` (CLI, referee)          ann, bo, eve (matrix-nio, this process)

The CLI and the referee run in namespace a and reach only A; the players' clients run in namespace
b and reach only B; A and B reach each other only over Matrix federation (HTTPS on port 8448,
self-signed certificates). The GM links a Fumbles campaign to a room made on A and seats @ann and
@bo of B; everything is checked as the players see it through B: the answers, a refusal, a view
and a whisper that reach ann alone, kill -9s of the referee, every request answered exactly once,
and `verify` of ann's shared copy against a hash posted in the room. The steps are
test_referee.py's (its Table, with the homeservers, joins and a few steps made federated).

Needs root (it makes network namespaces with `ip netns`). Run with the test venv's python
(`tests/matrix/run.sh test_federation`). One line per step; exit 0 when everything held. On a
failure it prints both homeservers' log tails and the referee's output.

Environment: HOUSERULE_BIN (default target/debug/houserule), HR_MATRIX_SEED (repeat the random
kill moments of a run), HR_MATRIX_KEEP=1 (keep the temp dir and say where it is).
"""

import asyncio
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import test_referee  # noqa: E402
from homeserver import Federation, Homeserver  # noqa: E402
from netns import SUBNET, Network, NetnsUnavailable  # noqa: E402
from players import Player  # noqa: E402
from test_referee import Failed, Table, check  # noqa: E402

REPO = HERE.parents[1]
FEDERATION_PORT = 8448
CLIENT_PORTS = {"a": 8101, "b": 8102}  # each on its own namespace's loopback
JOIN_TIMEOUT = 60.0  # an invite and a join each cross federation
JOIN_RETRY = 0.5


def server_name(net, side):
    return f"{net.address(side)}:{FEDERATION_PORT}"


def in_namespace_wrapper(path, net, side, binary):
    """A script that runs `binary` in namespace `side` (exec all the way down: its pid is the
    houserule process, so kill -9 of it reaches the referee itself)."""
    path.write_text(f'#!/bin/sh\nexec ip netns exec {net.names[side]} "{binary}" "$@"\n')
    path.chmod(0o755)
    return path


def reachable(host, port, timeout=1.0):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class FederatedPlayer(Player):
    """A Player that accepts an invite again when the first try is refused.

    Over federation the inviting server has the invitee's server sign the invite before it
    stores the invite itself; a client that joins at once can be refused by the inviting server
    ("403 You are not invited to this room"), and Player only joins when the invite first
    arrives. A person would click "join" again; this does, every JOIN_RETRY seconds."""

    joins_again = 0

    async def wait_joined(self, room_id, timeout=JOIN_TIMEOUT):
        deadline = time.monotonic() + timeout
        while room_id not in self.client.rooms:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.user_id}: not in {room_id} within {timeout:.0f} s")
            await asyncio.sleep(JOIN_RETRY)  # time for Player's own join on the invite
            if room_id in self.client.invited_rooms and room_id not in self.client.rooms:
                self.joins_again += 1
                await self.client.join(room_id)


class FederatedTable(Table):
    """test_referee's Table with the GM and referee on A and the players on B."""

    def __init__(self, tmp, rng, net):
        super().__init__(tmp, rng)
        self.net = net
        self.hs_a = self.homeserver("a", "b")
        self.hs_b = self.homeserver("b", "a")
        self.hs = self.hs_a  # the referee's homeserver, for whatever Table reads from self.hs

    def homeserver(self, side, peer):
        return Homeserver(
            self.tmp / f"synapse-{side}",
            server_name(self.net, side),
            port=CLIENT_PORTS[side],
            bind="127.0.0.1",
            launcher=self.net.exec(side, []),
            federation=Federation(
                self.net.address(side),
                FEDERATION_PORT,
                peers=[server_name(self.net, peer)],
                allow=[SUBNET],
            ),
        )

    async def in_a(self, fn, *args):
        """fn(*args) from a thread in namespace a (where A's client API is)."""
        return await asyncio.to_thread(self.net.call, "a", fn, *args)

    def homeservers(self):
        return {f"homeserver {side} ({hs.server_name})": hs for side, hs in (("A", self.hs_a), ("B", self.hs_b))}

    def steps(self):
        return [
            ("Synapse A and B start, each in its own network namespace", self.start_homeservers),
            ("A and B meet only at their federation ports; each client API stays home", self.isolation),
            ("gm registers on A; ann, bo and eve register on B", self.register),
            ("the GM sets up a Fumbles campaign (CLI in A's namespace)", self.setup_campaign),
            ("matrix link makes the room on A; ann and bo of B are seated and join over federation",
             self.link_and_invite),
            ("the referee starts on A's side and answers ann's !hr help on B", self.start_referee),
            ("!hr act challenge_roll from B is answered with a verify line", self.act_challenge_roll),
            ("bo acting for ann's Gandolf is refused", self.bo_refused),
            ("eve, on B but seated nowhere, is refused", self.eve_refused),
            ("ann's view and a whisper reach her direct room on B, never bo", self.private_to_ann),
            ("the GM acting from the CLI shows up on B", self.gm_acts_from_cli),
            ("requests sent while the referee is down are answered once", self.down_and_back),
            *[(f"kill -9 at a random moment, round {i}", self.random_kill) for i in (1, 2)],
            ("every request from B is answered", self.all_answered),
            ("one reply per request, one log event per act, in room order", self.account),
            ("ann's shared copy verifies the hash posted in the room", self.verify_share),
        ]

    # -- steps -------------------------------------------------------------------------------

    async def start_homeservers(self):
        started = time.monotonic()
        await asyncio.gather(self.in_a(self.hs_a.start), asyncio.to_thread(self.hs_b.start))
        print(
            f"      A {self.hs_a.server_name} (client {self.hs_a.url} in {self.net.names['a']}), "
            f"B {self.hs_b.server_name} (client {self.hs_b.url} in {self.net.names['b']}), "
            f"up in {time.monotonic() - started:.1f} s"
        )

    async def isolation(self):
        """The players' side (this thread, in b) reaches A only at its federation port; the
        referee's side (a) reaches B only at its federation port."""
        a, b = self.net.address("a"), self.net.address("b")
        check(reachable(b, FEDERATION_PORT), f"B's federation port {b}:{FEDERATION_PORT} is not up")
        check(reachable(a, FEDERATION_PORT), f"from b, A's federation port {a} is unreachable")
        check(not reachable(a, CLIENT_PORTS["a"]), "from b, A's client API answers on the veth")
        check(not reachable("127.0.0.1", CLIENT_PORTS["a"]), "from b, A's client API answers on loopback")
        from_a = [
            await self.in_a(reachable, b, FEDERATION_PORT),
            await self.in_a(reachable, "127.0.0.1", CLIENT_PORTS["b"]),
            await self.in_a(reachable, b, CLIENT_PORTS["b"]),
        ]
        check(from_a[0], f"from a, B's federation port {b} is unreachable")
        check(not from_a[1], "from a, B's client API answers on loopback")
        check(not from_a[2], "from a, B's client API answers on the veth")

    async def register(self):
        for name, hs in (("gm", self.hs_a), ("ann", self.hs_b), ("bo", self.hs_b), ("eve", self.hs_b)):
            self.passwords[name] = f"{name}-{os.urandom(8).hex()}"
            if hs is self.hs_a:
                user_id, _token = await self.in_a(hs.register, name, self.passwords[name])
            else:
                user_id, _token = await asyncio.to_thread(hs.register, name, self.passwords[name])
            check(user_id == f"@{name}:{hs.server_name}", f"registered {user_id}")
            self.users[name] = user_id

    async def setup_campaign(self):
        self.campaign_id = await test_referee.setup_fumbles(self.cli, self.campaign)
        for name in ("ann", "bo", "eve"):
            player = FederatedPlayer(self.hs_b.url, self.users[name], self.passwords[name])
            self.players[name] = await player.start()

    async def link_and_invite(self):
        await self.link()
        for name in ("ann", "bo"):
            started = time.monotonic()
            await self.invite(name)
            took = time.monotonic() - started
            again = self.players[name].joins_again
            again = f" (asked to join again {again}x: a join refused or slow)" if again else ""
            print(f"      {self.users[name]} joined the room and a direct room in {took:.1f} s{again}")
        check(self.direct["ann"] != self.direct["bo"], "ann and bo were given the same direct room")
        ann = self.players["ann"].client
        members = set(ann.rooms[self.direct["ann"]].users)
        check(members == {self.gm, self.users["ann"]}, f"ann's direct room has {sorted(members)}")
        members = set(ann.rooms[self.room].users)
        check(
            {self.gm, self.users["ann"], self.users["bo"]} <= members,
            f"on B the room has {sorted(members)}",
        )
        # Eve is in the room (ann invites her: a private room lets members invite) but plays nobody.
        await self.players["ann"].invite(self.room, self.users["eve"])
        await self.players["eve"].wait_joined(self.room)

    async def bo_refused(self):
        before = await self.log_length()
        request = await self.send("bo", "!hr act trait_check character=gandolf traits=Fireball")
        reply = await self.refused(request, "Gandolf")
        # The refusal is for bo and everyone in the room: ann sees it on B as well.
        seen = await self.guarded(
            self.players["ann"].wait_for(
                lambda m: m.event_id == reply.event_id, test_referee.REPLY_TIMEOUT, "bo's refusal"
            )
        )
        check(seen.room_id == self.room, f"ann saw bo's refusal in {seen.room_id}")
        check(await self.log_length() == before, "bo's refused command wrote to the log")

    async def answer(self, request):
        """As Table.answer; a reply that never comes fails naming the request."""
        try:
            return await super().answer(request)
        except TimeoutError as e:
            raise Failed(
                f"{request.player}'s {request.text!r} got no answer on B ({e}): is the referee on A "
                "running and federation between A and B working? (logs below)"
            ) from e

    async def eve_refused(self):
        """Eve's first request is refused with a reply (what the referee does with more from
        someone without a seat is test_referee's business)."""
        before = await self.log_length()
        await self.refused(await self.send("eve", "!hr act trait_check character=gandolf traits=Fireball"))
        check(await self.log_length() == before, "eve's refused command wrote to the log")

    async def all_answered(self):
        for request in self.requests:
            if not request.private:
                await self.answer(request)


async def play(table):
    try:
        await table.play()
        return False
    except Exception as error:  # noqa: BLE001 - every failure is reported the same way
        table.report_failure(error)
        return True
    finally:
        await table.close()


def stopped(signum, _frame):
    raise SystemExit(f"matrix federation: stopped by signal {signum}")


def main():
    seed = int(os.environ.get("HR_MATRIX_SEED") or random.randrange(1 << 30))
    binary = test_referee.HOUSERULE
    shown = binary.relative_to(REPO) if binary.is_relative_to(REPO) else binary
    print(f"matrix federation: two Synapses, two network namespaces + {shown} (HR_MATRIX_SEED={seed})")
    if not binary.exists():
        print(f"matrix federation: FAILED: {binary} is missing: build it first (cargo build)")
        return 1
    try:
        Network.check()
    except NetnsUnavailable as e:
        print(f"matrix federation: FAILED: this test needs Linux network namespaces, and {e}")
        return 1
    # Stopped from outside (a CI timeout), still unmake the namespaces: SIGTERM unwinds like ^C.
    signal.signal(signal.SIGTERM, stopped)
    tmp = Path(tempfile.mkdtemp(prefix="hr-matrix-fed-"))
    tmp.chmod(0o755)
    net = Network("hrfed")
    table = None
    failed = True
    try:
        net.create()
        print(f"      namespaces {net.names['a']} and {net.names['b']}, veth 10.77.0.1 <-> 10.77.0.2")
        # Every `houserule` the Table runs (CLI and referee) runs in namespace a.
        wrapper = in_namespace_wrapper(tmp / "houserule-in-a", net, "a", binary.resolve())
        test_referee.HOUSERULE = wrapper
        table = FederatedTable(tmp, random.Random(seed), net)
        # This thread, and the asyncio executor's threads it starts, live in namespace b: the
        # players' clients reach B only.
        with net.entered("b"):
            failed = asyncio.run(play(table))
    except NetnsUnavailable as e:
        print(f"  FAILED: the network namespaces could not be made: {e}")
    except Exception as e:  # noqa: BLE001
        print(f"  FAILED: {e!r}")
        traceback.print_exception(e)
    finally:
        net.destroy()
        if os.environ.get("HR_MATRIX_KEEP"):
            print(f"matrix federation: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    passed = table.passed if table else 0
    print(f"matrix federation: {passed} passed, {int(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
