#!/usr/bin/env python3
"""End to end: `houserule matrix` referees a Fumbles campaign in a room of a real Synapse.

Run with the test venv's python (tests/matrix/run.sh does both). One line per step; exit 0 when
everything held. On a failure it prints the homeserver's log tail and the referee's output.

Environment: HOUSERULE_BIN (default target/debug/houserule), HR_MATRIX_SEED (repeat the random
kill moments of a run), HR_MATRIX_KEEP=1 (keep the temp dir and say where it is).
"""

import asyncio
import io
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from homeserver import Homeserver, tail_of  # noqa: E402
from players import Player  # noqa: E402

REPO = HERE.parents[1]
HOUSERULE = Path(os.environ.get("HOUSERULE_BIN") or REPO / "target" / "debug" / "houserule")
REPLY_TIMEOUT = 30.0
VERIFY_LINE = re.compile(r"houserule verify\b.*?--event (\d+) --hash ([0-9a-f]{64})")
# `matrix invite ... --as NAME`: a bare player name as the issue writes it (`player:NAME`, as
# elsewhere in the CLI, works too); one place to change it.
INVITE_AS = "{name}"

# The colours of the map test's pictures: the hall's floor, Gandolf's token, the hidden trap.
MAP_GREEN = (10, 200, 10)
BLUE = (20, 60, 220)
MAGENTA = (210, 20, 200)

GANDOLF = ["IQ of 180", "Magic!", "Barrier", "Fireball", "Levitate", "Scorching Hellfire", "pyromaniac"]
FRODY = ["agility", "halfling fortitude", "small size", "frying pan", "quick reflexes"]
# The requests of the kill rounds: trait checks, which Fumbles lets a player repeat at will
# (a challenge roll is once per character per turn).
ROUND_REQUESTS = [
    ("ann", "trait_check", 'character=gandolf traits="IQ of 180,Magic!"'),
    ("bo", "trait_check", 'character=frody traits="halfling fortitude"'),
    ("ann", "trait_check", "character=gandolf traits=Levitate successes_needed=2"),
]
# Where HOUSERULE_MATRIX_FAULT can crash the referee: after an action is committed, after an
# answer is sent, after an event's post is sent — each before the referee notes it done.
CRASH_POINTS = ("acted", "answered", "posted")


class Failed(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise Failed(message)


# -- the houserule command line -------------------------------------------------------------


class Cli:
    """Runs target/debug/houserule with its config dir in the test's temp dir."""

    def __init__(self, config_dir):
        self.env = {**os.environ, "HOUSERULE_CONFIG_DIR": str(config_dir)}
        for name in ("HOUSERULE_MATRIX_PASSWORD", "HOUSERULE_MATRIX_TOKEN"):
            self.env.pop(name, None)

    async def run(self, *args, env=None, ok=True, timeout=90):
        """The finished process; with ok=True a non-zero exit is a failure."""
        argv = [str(HOUSERULE), *map(str, args)]
        done = await asyncio.to_thread(
            subprocess.run,
            argv,
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if ok and done.returncode != 0:
            raise Failed(
                f"`houserule {' '.join(map(str, args))}` exited {done.returncode}:\n"
                f"{done.stderr.strip()}\n{done.stdout.strip()}"
            )
        return done

    async def json(self, *args, **kw):
        return json.loads((await self.run("--json", *args, **kw)).stdout)

    async def log(self, campaign):
        """The whole log as the GM sees it."""
        return await self.json("log", campaign, "--as", "gm")


async def setup_fumbles(cli, campaign):
    """A Fumbles campaign: Gandolf (ann) and Frody (bo) facing a challenge. Returns its id."""
    created = await cli.json("new", campaign, "--ruleset", "fumbles", "--name", "Goblin night")
    await create_character(cli, campaign, "Gandolf", "ann", GANDOLF, "exhausted quickly", "really big Ego")
    await create_character(cli, campaign, "Frody", "bo", FRODY, "second breakfast", "panics")
    # A CR far out of reach and no Smash: the challenge stays open through every roll.
    await cli.run(
        "act",
        campaign,
        "start_challenge",
        "--as",
        "gm",
        "-p",
        "name=Goblin war band",
        "-p",
        "cr=60",
        "-p",
        "toughness=1",
        "-p",
        "smash=0",
    )
    return created["campaign"]["id"]


async def create_character(cli, campaign, name, owner, traits, heel, explosion):
    await cli.run(
        "act",
        campaign,
        "create_character",
        "--as",
        "gm",
        "-p",
        f"name={name}",
        "-p",
        f"owner={owner}",
        "-p",
        "traits=" + ",".join(traits),
        "-p",
        f"achilles_heel={heel}",
        "-p",
        f"stress_explosion={explosion}",
    )


def origin_event(entry):
    """The Matrix event id the referee recorded with a log entry, or None."""
    detail = entry.get("detail") or {}
    origin = detail.get("origin") if isinstance(detail, dict) else None
    return origin.get("event") if isinstance(origin, dict) else None


# -- the referee process --------------------------------------------------------------------


class Referee:
    """`houserule matrix run FILE` in the background: started, killed with -9, started again."""

    def __init__(self, cli, campaign, log_path):
        self.cli = cli
        self.campaign = campaign
        self.log_path = log_path
        self.proc = None
        self.starts = 0
        self.down = True  # stopped on purpose: its exit is no crash

    def start(self, fault=None):
        """Starts it; with `fault` (POINT:N) it aborts itself there (HOUSERULE_MATRIX_FAULT)."""
        self.starts += 1
        self.down = False
        env = dict(self.cli.env, HOUSERULE_MATRIX_FAULT=fault) if fault else self.cli.env
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== referee start {self.starts} =====\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [str(HOUSERULE), "matrix", "run", str(self.campaign)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

    def kill9(self):
        """SIGKILL to the referee and whatever it started (its own process group)."""
        self.down = True
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc:
            self.proc.wait()

    async def aborted(self, point, timeout):
        """Waits for the abort a fault asked for; fails if it exits otherwise or not at all."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None:
            check(time.monotonic() < deadline, f"the referee never reached its fault point {point}")
            await asyncio.sleep(0.05)
        self.down = True
        check(
            self.proc.returncode == -signal.SIGABRT,
            f"the referee with a fault at {point} exited with {self.proc.returncode}, not SIGABRT",
        )

    def crashed(self):
        """Its exit code when it ended by itself, else None."""
        if self.proc is None or self.down:
            return None
        return self.proc.poll()

    def stop(self):
        self.down = True
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill9()

    def tail(self, lines=80):
        return tail_of(self.log_path, lines, "(the referee never started)")


# -- the scenario ---------------------------------------------------------------------------


@dataclass
class Request:
    """A `!hr ...` message a player sent to the shared room."""

    player: str
    event_id: str
    text: str
    logs: str = ""  # the action (or "post") it must write to the log once; "" for none
    private: bool = False  # answered in the direct room, or passed over: no room reply required


class Table:
    """Everything one run sets up: homeserver, campaign, players, referee, and what was sent."""

    def __init__(self, tmp, rng):
        self.tmp = tmp
        self.rng = rng
        self.cli = Cli(tmp / "config")
        self.campaign = tmp / "goblin-night.houserule"
        self.hs = Homeserver(tmp / "synapse")
        self.referee = Referee(self.cli, self.campaign, tmp / "referee.log")
        self.passwords = {}
        self.users = {}
        self.players = {}
        self.direct = {}
        self.requests = []
        self.passed = 0

    # -- running steps -----------------------------------------------------------------------

    def homeservers(self):
        """Every homeserver of the run, by the name its log is shown under."""
        return {"homeserver": self.hs}

    def steps(self):
        """The run's steps, in order: (what it shows, the coroutine function)."""
        return [
            ("a Synapse homeserver starts; gm, ann, bo and eve register", self.start_homeserver),
            ("the GM sets up a Fumbles campaign from the CLI", self.setup_campaign),
            ("matrix link makes the room; matrix invite brings ann and bo in", self.link_and_invite),
            ("the referee starts and answers !hr help", self.start_referee),
            ("a second referee for the campaign is refused while one runs", self.second_referee),
            ("!hr actions lists what ann may do", self.ask_actions),
            ("!hr act challenge_roll is answered with a verify line", self.act_challenge_roll),
            ("!hr turn says where the challenge's turn stands", self.ask_turn),
            ("!hr say and !hr log", self.say_and_log),
            ("bad commands are refused by name and log nothing", self.bad_commands),
            ("eve, not at this table, is refused once, then passed over", self.eve_refused),
            ("ann's view and a whisper reach her direct room only", self.private_to_ann),
            ("a handout shown to ann reaches her direct room only", self.handout_to_ann),
            ("!hr map draws the room's map and ann's own; no hidden or fogged pixel", self.map_pictures),
            ("!hr move moves bo's token; a hidden one is no token to him", self.move_from_room),
            ("a crash right after a move is committed: taken once", self.crash_after_move),
            ("the GM acting from the CLI shows up in the room", self.gm_acts_from_cli),
            ("requests sent while the referee is down are answered once", self.down_and_back),
            *[(f"kill -9 at a random moment, round {i}", self.random_kill) for i in (1, 2, 3)],
            *[(f"a crash right after {p}: nothing lost or doubled", self.crash_at(p)) for p in CRASH_POINTS],
            ("matrix run --once answers what waits and exits", self.run_once),
            ("one reply per request, one log event per act, in room order", self.account),
            ("ann's shared copy verifies the posted hash", self.verify_share),
        ]

    async def play(self):
        for name, step in self.steps():
            started = time.monotonic()
            await step()
            self.passed += 1
            print(f"  ok  {name} ({time.monotonic() - started:.1f} s)", flush=True)

    async def close(self):
        self.referee.stop()
        await asyncio.gather(*(p.close() for p in self.players.values()), return_exceptions=True)
        for hs in self.homeservers().values():
            hs.stop()

    def report_failure(self, error):
        print(f"  FAILED: {error}", flush=True)
        if not isinstance(error, Failed):
            traceback.print_exception(error)
        for name, hs in self.homeservers().items():
            print(f"\n----- {name} log (last lines) -----\n{hs.log_tail(40)}")
        print(f"\n----- referee output (last lines) -----\n{self.referee.tail()}", flush=True)

    # -- helpers -----------------------------------------------------------------------------

    @property
    def gm(self):
        return self.users["gm"]

    async def send(self, name, text, logs="", private=False):
        """Player `name` sends `text` to the shared room; the request is remembered."""
        event_id = await self.players[name].send(self.room, text)
        request = Request(name, event_id, text, logs, private)
        self.requests.append(request)
        return request

    async def guarded(self, waiting):
        """Await `waiting`, but fail at once if the referee dies by itself meanwhile."""
        task = asyncio.ensure_future(waiting)
        while not task.done():
            code = self.referee.crashed()
            if code is not None:
                task.cancel()
                raise Failed(f"the referee exited by itself with {code}")
            await asyncio.wait([task], timeout=0.1)
        return task.result()

    async def answer(self, request):
        """The referee's reply to a request, as its sender saw it; checks the message's shape."""
        player = self.players[request.player]
        reply = await self.guarded(player.wait_for_reply(self.gm, request.event_id, REPLY_TIMEOUT))
        check(reply.room_id == self.room, f"reply to {request.text!r} came in {reply.room_id}")
        if request.text.strip() == "!hr map":
            check_picture(reply)
        else:
            check_notice(reply)
        return reply

    async def refused(self, request, *names):
        """The reply refuses the request and names each of `names` (case aside)."""
        reply = await self.answer(request)
        marker = reply.content.get("houserule") or {}
        check(marker.get("refused"), f"{request.text!r}: reply lacks houserule.refused: {reply.content}")
        for name in names:
            check(
                name.lower() in reply.body.lower(),
                f"{request.text!r}: refusal does not name {name!r}: {reply.body!r}",
            )
        return reply

    async def log_length(self):
        return len(await self.cli.log(self.campaign))

    # -- steps -------------------------------------------------------------------------------

    async def start_homeserver(self):
        started = time.monotonic()
        await asyncio.to_thread(self.hs.start)
        print(f"      Synapse up in {time.monotonic() - started:.1f} s at {self.hs.url}")
        for name in ("gm", "ann", "bo", "eve"):
            self.passwords[name] = f"{name}-{secrets.token_hex(8)}"
            user_id, _token = await asyncio.to_thread(self.hs.register, name, self.passwords[name])
            check(user_id == f"@{name}:{self.hs.server_name}", f"registered {user_id}")
            self.users[name] = user_id

    async def setup_campaign(self):
        self.campaign_id = await setup_fumbles(self.cli, self.campaign)
        for name in ("ann", "bo", "eve", "gm"):
            self.players[name] = await Player(self.hs.url, self.users[name], self.passwords[name]).start()

    async def link(self):
        """The GM links the campaign to a new room with `houserule matrix link`."""
        linked = await self.cli.json(
            "matrix",
            "link",
            self.campaign,
            "--homeserver",
            self.hs.url,
            "--user",
            self.gm,
            env={"HOUSERULE_MATRIX_PASSWORD": self.passwords["gm"]},
        )
        self.room = linked.get("room", "")
        check(self.room.startswith("!"), f"matrix link --json: no room id: {linked}")
        check(linked.get("user") == self.gm, f"matrix link --json: user {linked.get('user')}")

    async def link_and_invite(self):
        await self.link()
        for name in ("ann", "bo"):
            await self.invite(name)
        check(self.direct["ann"] != self.direct["bo"], "ann and bo were given the same direct room")
        members = set(self.players["ann"].client.rooms[self.direct["ann"]].users)
        check(members == {self.gm, self.users["ann"]}, f"ann's direct room has {sorted(members)}")
        # Eve is in the room (the GM's own device invites her) but plays nobody.
        await self.players["gm"].wait_joined(self.room)
        await self.players["gm"].invite(self.room, self.users["eve"])
        await self.players["eve"].wait_joined(self.room)

    async def invite(self, name):
        user = self.users[name]
        out = await self.cli.json(
            "matrix", "invite", self.campaign, user, "--as", INVITE_AS.format(name=name)
        )
        check(out.get("player") == name and out.get("user") == user, f"matrix invite --json: {out}")
        check(out.get("room") == self.room, f"matrix invite --json: room {out.get('room')}, not {self.room}")
        direct = out.get("direct", "")
        check(direct.startswith("!") and direct != self.room, f"matrix invite --json: direct {direct!r}")
        self.direct[name] = direct
        await self.players[name].wait_joined(self.room)
        await self.players[name].wait_joined(direct)

    async def start_referee(self):
        self.referee.start()
        request = await self.send("ann", "!hr help")
        reply = await self.answer(request)
        check("!hr act" in reply.body, f"!hr help does not show !hr act: {reply.body!r}")

    async def second_referee(self):
        done = await self.cli.run("matrix", "run", self.campaign, "--once", ok=False)
        check(done.returncode != 0, "a second `matrix run` for the same campaign was let in")
        check("another referee" in done.stderr, f"the second referee's refusal: {done.stderr.strip()!r}")
        check(self.referee.crashed() is None, "the first referee ended when a second one tried")

    async def ask_actions(self):
        reply = await self.answer(await self.send("ann", "!hr actions"))
        for action in ("challenge_roll", "trait_check"):
            check(action in reply.body, f"!hr actions lacks {action}: {reply.body!r}")
        check("gm_dice" not in reply.body, f"!hr actions offers ann the GM's gm_dice: {reply.body!r}")

    async def act_challenge_roll(self):
        text = (
            "!hr act challenge_roll character=gandolf"
            ' attack="Scorching Hellfire,Fireball" defense=Barrier,Levitate'
        )
        request = await self.send("ann", text, logs="challenge_roll")
        reply = await self.answer(request)
        if os.environ.get("HR_MATRIX_SHOW"):
            print(f"--- {text}\n{reply.body}\n--- (HTML)\n{reply.formatted_body}\n---")
        found = VERIFY_LINE.search(reply.body)
        check(found, f"no `houserule verify --event N --hash H` line in {reply.body!r}")
        self.verify_event, self.verify_hash = int(found[1]), found[2]
        marker = reply.content.get("houserule") or {}
        expected = {"campaign": self.campaign_id, "seq": self.verify_event, "hash": self.verify_hash}
        check(
            {k: marker.get(k) for k in expected} == expected, f"houserule field {marker}, expected {expected}"
        )
        entry = next((e for e in await self.cli.log(self.campaign) if e["seq"] == self.verify_event), None)
        check(entry and entry.get("action") == "challenge_roll", f"log event {self.verify_event}: {entry}")
        check(entry["hash"] == self.verify_hash, f"log hash {entry['hash']} != posted {self.verify_hash}")
        check(entry.get("actor") == "player:ann", f"challenge_roll logged as {entry.get('actor')}")
        check(origin_event(entry) == request.event_id, f"detail.origin.event {origin_event(entry)!r}")

    async def ask_turn(self):
        reply = await self.answer(await self.send("bo", "!hr turn"))
        check(reply.body.startswith("Turn order, round 1:"), f"!hr turn: {reply.body!r}")
        check("Gandolf (acted)" in reply.body, f"!hr turn does not show Gandolf has rolled: {reply.body!r}")

    async def say_and_log(self):
        words = f"The goblins smell of cabbage ({secrets.token_hex(3)})"
        said = await self.answer(await self.send("ann", f"!hr say {words}", logs="post"))
        last = (await self.cli.log(self.campaign))[-1]
        check(last.get("kind") == "post" and words in json.dumps(last), f"!hr say logged {last}")
        check(
            (said.content.get("houserule") or {}).get("seq") == last["seq"], f"!hr say reply {said.content}"
        )
        shown = await self.answer(await self.send("bo", "!hr log 2"))
        check(words in shown.body, f"!hr log 2 does not show ann's post: {shown.body!r}")

    async def bad_commands(self):
        before = await self.log_length()
        cases = [
            ("!hr act teleport_everyone", ["teleport_everyone"]),
            ("!hr act trait_check character=gandolf traits=Teleport", ["Teleport"]),
            ("!hr act trait_check character=frody traits=agility", ["Frody"]),  # bo's hero
            ("!hr act challenge_roll character=gandolf attack=Fireball", ["already rolled"]),  # TURNS
            ("!hr frobnicate", ["frobnicate"]),
        ]
        for text, names in cases:
            await self.refused(await self.send("ann", text), *names)
        check(await self.log_length() == before, "a refused command wrote to the log")

    async def eve_refused(self):
        before = await self.log_length()
        await self.refused(await self.send("eve", "!hr act trait_check character=gandolf traits=Fireball"))
        # More from her within the quiet time is passed over: she cannot make the referee flood.
        more = [await self.send("eve", text, private=True) for text in ("!hr help", "!hr view", "!hr actions")]
        await asyncio.sleep(2.0)
        check(not any(self.replies_seen(r) for r in more), "the referee kept answering eve, who has no seat")
        check(await self.log_length() == before, "eve's refused command wrote to the log")

    async def private_to_ann(self):
        ann, direct = self.players["ann"], self.direct["ann"]
        start = len(ann.seen)
        await self.send("ann", "!hr view", private=True)
        view = await self.guarded(
            ann.wait_for(
                lambda m: m.sender == self.gm and "Gandolf" in m.body and "Goblin war band" in m.body,
                REPLY_TIMEOUT,
                "view of the table",
                since=start,
            )
        )
        check(
            view.room_id == direct, f"ann's view was posted in {view.room_id}, not her direct room {direct}"
        )
        check_notice(view)
        self.private_bodies = [view.body]
        self.private_events = [view.event_id]
        self.secret = f"weak-spot-{secrets.token_hex(4)}"
        await self.cli.run(
            "say", self.campaign, "--to", "player:ann", f"The chieftain's weak spot: {self.secret}"
        )
        whisper = await self.guarded(
            ann.wait_for(
                lambda m: self.secret in m.body and m.sender == self.gm, REPLY_TIMEOUT, "the GM's whisper"
            )
        )
        check(
            whisper.room_id == direct,
            f"the whisper to ann was posted in {whisper.room_id}, not her direct room",
        )
        self.private_events.append(whisper.event_id)
        await asyncio.sleep(1.0)  # time for a leak to arrive before looking for one
        await self.check_privacy()

    async def handout_to_ann(self):
        ann, direct = self.players["ann"], self.direct["ann"]
        words = f"vault-code-{secrets.token_hex(4)}"
        op = {"op": "write", "title": "The vault", "text": f"The code is *{words}*."}
        await self.cli.run("handout", self.campaign, "--op", json.dumps(op))
        listed = await self.cli.json("handout", self.campaign)
        hid = next(h["id"] for h in listed if h["title"] == "The vault")
        start = len(ann.seen)
        await self.cli.run("handout", self.campaign, "--op", json.dumps({"op": "reveal", "id": hid, "players": ["ann"]}))
        told = await self.guarded(
            ann.wait_for(
                lambda m: m.sender == self.gm and "shows you the handout" in m.body,
                REPLY_TIMEOUT,
                "the line that ann is shown a handout",
                since=start,
            )
        )
        check(told.room_id == direct, f"ann was told of her handout in {told.room_id}, not her direct room")
        request = await self.send("ann", "!hr handouts")
        room_answer = await self.answer(request)
        check("No handout has been shown to you" in room_answer.body, f"the room's answer: {room_answer.body!r}")
        got = await self.guarded(
            ann.wait_for(lambda m: m.sender == self.gm and words in m.body, REPLY_TIMEOUT, "ann's handout", since=start)
        )
        check(got.room_id == direct, f"ann's handout was posted in {got.room_id}, not her direct room")
        await asyncio.sleep(1.0)  # time for a leak to arrive before looking for one
        for m in await ann.history(self.room):
            check(words not in m.body and hid not in m.body, f"the handout leaked into the shared room: {m.body!r}")
        bo = self.players["bo"]
        seen = list(bo.seen)
        for room_id in list(bo.client.rooms):
            seen += await bo.history(room_id)
        for m in seen:
            check(words not in m.body and "The vault" not in m.body, f"bo saw ann's handout in {m.room_id}")

    async def scene_op(self, op):
        await self.cli.run("scene", self.campaign, "--op", json.dumps(op))

    async def map_pictures(self):
        """The GM prepares a fogged hall from the CLI: Gandolf (ann's, hidden from the others,
        blue), Frody (bo's, no picture) and a hidden trap (magenta) deep in the fog."""
        from PIL import Image  # Pillow comes with Synapse in the test's venv

        await self.scene_op({"op": "create", "id": "hall", "name": "The Hall"})
        scenes = await self.cli.json("scene", self.campaign)
        size = int(next(s["grid"]["size"] for s in scenes if s["id"] == "hall"))
        pictures = {}
        for name, colour, side in (("hall", MAP_GREEN, 8 * size), ("gandolf", BLUE, 40), ("trap", MAGENTA, 40)):
            path = self.tmp / f"{name}.png"
            Image.new("RGB", (side, side), colour).save(path)
            imported = await self.cli.run("scene", self.campaign, "--import", path)
            pictures[name] = imported.stdout.split()[-1]
        background = {"digest": pictures["hall"], "width": 8 * size, "height": 8 * size}
        await self.scene_op({"op": "update", "id": "hall", "background": background})
        place = {"op": "place", "scene": "hall"}
        await self.scene_op({**place, "id": "t-gandolf", "entity": "gandolf", "cell": [0, 0], "image": pictures["gandolf"], "hidden": True})
        await self.scene_op({**place, "id": "t-frody", "entity": "frody", "cell": [1, 0]})
        await self.scene_op({**place, "id": "zq-trap", "label": "Pit trap", "cell": [6, 6], "image": pictures["trap"], "hidden": True})
        await self.scene_op({"op": "fog", "scene": "hall", "on": True})
        await self.scene_op({"op": "fog", "scene": "hall", "polygon": [[0, 0], [4, 0], [4, 4], [0, 4]]})
        await self.scene_op({"op": "show", "id": "hall"})
        self.open_side = 4 * size
        self.map_side = 8 * size

        bo_request = await self.send("bo", "!hr map")
        bo_map = await self.picture_reply(bo_request)
        self.check_drawing(bo_map, "the room's map (bo asked)", blue=False)
        check("Frody" in bo_map.body, f"the map's legend does not name Frody: {bo_map.body!r}")
        ann_start = len(self.players["ann"].seen)
        ann_request = await self.send("ann", "!hr map")
        room_map = await self.picture_reply(ann_request)
        self.check_drawing(room_map, "the room's map (ann asked)", blue=False)
        check("direct room" in room_map.body, f"the room is not told ann got her own map: {room_map.body!r}")
        own = await self.guarded(
            self.players["ann"].wait_for(
                lambda m: m.sender == self.gm and m.content.get("msgtype") == "m.image" and m.room_id == self.direct["ann"],
                REPLY_TIMEOUT,
                "ann's own map in her direct room",
                since=ann_start,
            )
        )
        self.check_drawing(own, "ann's own map", blue=True)
        check("Gandolf" in own.body, f"ann's own legend does not name Gandolf: {own.body!r}")
        await asyncio.sleep(1.0)  # time for a leak to arrive before looking for one
        await self.check_no_hidden_token()

    async def picture_reply(self, request):
        """The referee's m.image reply to a request, in the room."""
        player = self.players[request.player]
        reply = await self.guarded(player.wait_for_reply(self.gm, request.event_id, REPLY_TIMEOUT))
        check(reply.room_id == self.room, f"the map for {request.text!r} came in {reply.room_id}")
        check_picture(reply)
        return reply

    def check_drawing(self, message, what, blue):
        """The picture a message links, downloaded and decoded: the map shows only where the
        fog is lifted; the hidden trap never; Gandolf (blue) exactly when `blue`."""
        from PIL import Image

        url = message.content.get("url", "")
        check(url.startswith("mxc://"), f"{what}: no mxc URL: {message.content}")
        server, media = url[len("mxc://"):].split("/", 1)
        token = self.players["ann"].client.access_token
        request = urllib.request.Request(
            f"{self.hs.url}/_matrix/client/v1/media/download/{server}/{media}",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as r:
            img = Image.open(io.BytesIO(r.read())).convert("RGB")
        info = message.content.get("info") or {}
        check((info.get("w"), info.get("h")) == img.size, f"{what}: info says {info}, the PNG is {img.size}")
        scale = img.size[0] / self.map_side
        near = lambda p, c: all(abs(p[i] - c[i]) <= 3 for i in range(3))  # noqa: E731
        green_far, counts = 0, {"blue": 0, "magenta": 0, "green": 0}
        pixels = img.load()
        width = img.size[0]
        for i in range(width * img.size[1]):
            p = pixels[i % width, i // width]
            if near(p, MAP_GREEN):
                counts["green"] += 1
                green_far = max(green_far, i % img.size[0], i // img.size[0])
            elif near(p, BLUE):
                counts["blue"] += 1
            elif near(p, MAGENTA):
                counts["magenta"] += 1
        check(counts["green"] > 0, f"{what}: no pixel of the map where the fog is lifted")
        check(green_far < self.open_side * scale, f"{what}: a map pixel at {green_far} lies under the fog")
        check(counts["magenta"] == 0, f"{what}: {counts['magenta']} pixels of the hidden trap's picture")
        check((counts["blue"] > 0) == blue, f"{what}: {counts['blue']} pixels of Gandolf's picture (expected {blue})")
        for name in ("Pit trap", "zq-trap"):
            check(name not in message.body and name not in json.dumps(message.content), f"{what} names {name}")

    async def check_no_hidden_token(self):
        """Nobody's message in the shared room, and nothing bo can see, names the hidden trap
        or Gandolf's hidden token; bo was sent no map of his own."""
        for m in await self.players["ann"].history(self.room):
            for secret in ("Pit trap", "zq-trap", "t-gandolf"):
                check(secret not in json.dumps(m.content), f"the room was told of {secret}: {m.body!r}")
        bo = self.players["bo"]
        for room_id in list(bo.client.rooms):
            for m in await bo.history(room_id):
                for secret in ("Pit trap", "zq-trap", "Gandolf:", "t-gandolf"):
                    check(secret not in json.dumps(m.content), f"bo saw {secret} in {room_id}: {m.body!r}")
                if room_id == self.direct["bo"]:
                    check(m.content.get("msgtype") != "m.image", "bo was sent a map of his own, the same as the room's")

    async def token_cell(self, token):
        scenes = await self.cli.json("scene", self.campaign)
        return next(t["cell"] for s in scenes for t in s["tokens"] if t["id"] == token)

    async def move_from_room(self):
        before = await self.log_length()
        hidden = await self.refused(await self.send("bo", "!hr move Gandolf 2,2"))
        nobody = await self.refused(await self.send("bo", "!hr move Nobody 2,2"))
        check(
            hidden.body.replace("Gandolf", "X") == nobody.body.replace("Nobody", "X"),
            f"a hidden token is refused unlike one nobody has: {hidden.body!r} / {nobody.body!r}",
        )
        await self.refused(await self.send("bo", "!hr move frody 0,1"), "column,row")
        check(await self.log_length() == before, "a refused move wrote to the log")
        await self.answer(await self.send("bo", "!hr move frody 3,1", logs="move"))
        cell = await self.token_cell("t-frody")
        check(cell == [2, 0], f"Frody stands at {cell} after '!hr move frody 3,1', not [2, 0] (column 3, row 1)")

    async def crash_after_move(self):
        self.referee.kill9()
        self.referee.start(fault="acted:1")
        request = await self.send("bo", "!hr move Frody 4,1 4,2", logs="move")
        await self.referee.aborted("acted", REPLY_TIMEOUT)
        self.referee.start()
        await self.answer(request)
        cell = await self.token_cell("t-frody")
        check(cell == [3, 1], f"Frody stands at {cell} after one move to column 4, row 2, not [3, 1]")

    async def check_privacy(self):
        """Nothing private to ann is in the shared room or anywhere bo can see."""
        shared = await self.players["ann"].history(self.room)
        for m in shared:
            check(self.secret not in m.body, f"the whisper leaked into the shared room: {m.body!r}")
            check(m.body not in self.private_bodies, "ann's view was posted in the shared room")
        bo = self.players["bo"]
        seen = list(bo.seen)
        for room_id in list(bo.client.rooms):
            seen += await bo.history(room_id)
        for m in seen:
            check(m.event_id not in self.private_events, f"bo saw ann's private message in {m.room_id}")
            check(self.secret not in m.body, f"bo saw the whisper in {m.room_id}")

    async def gm_acts_from_cli(self):
        done = await self.cli.json(
            "act",
            self.campaign,
            "gm_dice",
            "--as",
            "gm",
            "-p",
            "kind=boon",
            "-p",
            "count=2",
            "-p",
            "voluntary=true",
        )
        seq = done["event"]["seq"]
        names = ("gm_dice", "Roll black or boon dice")
        shown = await self.guarded(
            self.players["bo"].wait_for(
                lambda m: m.room_id == self.room
                and m.sender == self.gm
                and ((m.content.get("houserule") or {}).get("seq") == seq or any(n in m.body for n in names)),
                REPLY_TIMEOUT,
                f"the GM's gm_dice (event {seq}) in the room",
            )
        )
        check_notice(shown)

    async def down_and_back(self):
        self.referee.kill9()
        frody_rolls = 'character=frody attack="frying pan" defense="agility,small size,quick reflexes"'
        batch = [
            await self.send(
                "ann", "!hr act trait_check character=gandolf traits=Fireball,Levitate", "trait_check"
            ),
            await self.send("bo", f"!hr act challenge_roll {frody_rolls}", "challenge_roll"),
        ]
        await asyncio.sleep(1.0)
        check(
            not any(self.replies_seen(r) for r in batch), "a request was answered while the referee was down"
        )
        self.referee.start()
        for request in batch:
            await self.answer(request)
        await asyncio.sleep(1.0)
        await self.check_log_once(batch)

    async def random_kill(self):
        for name, action, params in ROUND_REQUESTS:
            await self.send(name, f"!hr act {action} {params}", logs=action)
        delay = self.rng.uniform(0.0, 1.5)
        await asyncio.sleep(delay)
        self.referee.kill9()
        self.referee.start()
        print(f"      killed after {delay:.2f} s and started again")

    def crash_at(self, point):
        """A step: the referee aborts at `point` (the moment between doing a thing and noting it
        done), is started again, and answers; `account` checks nothing was lost or doubled."""

        async def step():
            self.referee.kill9()
            self.referee.start(fault=f"{point}:1")
            if point == "answered":
                request = await self.send("bo", "!hr actions")
            else:
                request = await self.send(
                    "bo", "!hr act trait_check character=frody traits=agility", logs="trait_check"
                )
            await self.referee.aborted(point, REPLY_TIMEOUT)
            self.referee.start()
            await self.answer(request)

        return step

    async def run_once(self):
        for request in self.requests:
            if not request.private:
                await self.answer(request)
        self.referee.kill9()
        request = await self.send(
            "bo", "!hr act trait_check character=frody traits=agility", logs="trait_check"
        )
        await self.cli.run("matrix", "run", self.campaign, "--once", timeout=REPLY_TIMEOUT * 2)
        await self.answer(request)

    async def account(self):
        await asyncio.sleep(2.0)  # a duplicate answer would have arrived by now
        history = await self.players["ann"].history(self.room)
        self.check_replies(history)
        sent = {r.event_id for r in self.requests}
        order = [m.event_id for m in history if m.event_id in sent]
        check(len(order) == len(sent), f"{len(sent) - len(order)} requests missing from the room history")
        acts = sorted((r for r in self.requests if r.logs), key=lambda r: order.index(r.event_id))
        logged = await self.check_log_once(acts, all_origins=True)
        replies = self.check_replies(history)
        for r in acts:
            marker = replies[r.event_id][0].content.get("houserule") or {}
            entry = logged[r.event_id]
            reported = (marker.get("campaign"), marker.get("seq"), marker.get("hash"))
            logged_as = (self.campaign_id, entry["seq"], entry["hash"])
            check(reported == logged_as, f"reply to {r.text!r} reports {reported}, the log has {logged_as}")
        await self.check_privacy()
        await self.cli.run("verify", self.campaign)
        print(
            f"      {len(self.requests)} requests, {len(acts)} logged, {self.referee.starts} referee starts"
        )

    def check_replies(self, history):
        """Exactly one referee reply to each request (at most one to a private one), and no
        reply to anything else; returns the replies by request event id."""
        replies = {}
        for m in history:
            if m.sender == self.gm and m.reply_to:
                replies.setdefault(m.reply_to, []).append(m)
        for r in self.requests:
            got = len(replies.get(r.event_id, []))
            check(got in ((0, 1) if r.private else (1,)), f"{r.player}'s {r.text!r} has {got} replies")
        stray = set(replies) - {r.event_id for r in self.requests}
        check(not stray, f"the referee replied to events that are no requests: {sorted(stray)}")
        return replies

    async def check_log_once(self, requests, all_origins=False):
        """Each request wrote exactly one log event with its action, in the given (room) order.
        With all_origins, no other event carries a Matrix origin and origins are unique."""
        log = await self.cli.log(self.campaign)
        by_origin = {}
        for entry in log:
            event_id = origin_event(entry)
            if event_id:
                by_origin.setdefault(event_id, []).append(entry)
        for r in requests:
            entries = by_origin.get(r.event_id, [])
            check(len(entries) == 1, f"{r.text!r} ({r.event_id}) has {len(entries)} log events")
            entry = entries[0]
            kind = entry.get("action") or entry.get("kind")
            check(kind == r.logs, f"{r.text!r} logged as {kind}, expected {r.logs}")
            check(entry.get("actor") == f"player:{r.player}", f"{r.text!r} logged by {entry.get('actor')}")
        seqs = [by_origin[r.event_id][0]["seq"] for r in requests]
        check(seqs == sorted(seqs), f"log order {seqs} is not the room order of the requests")
        if all_origins:
            extra = set(by_origin) - {r.event_id for r in requests}
            check(not extra, f"log events with origins nobody asked for: {sorted(extra)}")
        return {r.event_id: by_origin[r.event_id][0] for r in requests}

    def replies_seen(self, request):
        player = self.players[request.player]
        return [m for m in player.seen if m.sender == self.gm and m.reply_to == request.event_id]

    async def verify_share(self):
        copy = self.tmp / "ann-copy.houserule"
        await self.cli.run("share", self.campaign, copy, "--for", "player:ann")
        await self.cli.run("verify", copy, "--event", self.verify_event, "--hash", self.verify_hash)
        wrong = self.verify_hash[:-1] + ("0" if self.verify_hash[-1] != "0" else "1")
        done = await self.cli.run("verify", copy, "--event", self.verify_event, "--hash", wrong, ok=False)
        check(done.returncode != 0, "verify accepted a wrong hash")


def check_notice(message):
    """Referee messages are m.notice with an HTML formatted_body beside the plain body."""
    c = message.content
    check(c.get("msgtype") == "m.notice", f"referee message is {c.get('msgtype')}, not m.notice: {c}")
    check(c.get("format") == "org.matrix.custom.html" and c.get("formatted_body"), f"no HTML body: {c}")


def check_picture(message):
    """A map is an m.image with its legend as the caption, plain and HTML."""
    c = message.content
    check(c.get("msgtype") == "m.image", f"the map is {c.get('msgtype')}, not m.image: {c}")
    check(c.get("format") == "org.matrix.custom.html" and c.get("formatted_body"), f"no HTML caption: {c}")


async def main():
    seed = int(os.environ.get("HR_MATRIX_SEED") or random.randrange(1 << 30))
    binary = HOUSERULE.relative_to(REPO) if HOUSERULE.is_relative_to(REPO) else HOUSERULE
    print(f"matrix: Synapse + {binary} (HR_MATRIX_SEED={seed})", flush=True)
    if not HOUSERULE.exists():
        print(f"matrix: {HOUSERULE} is missing: build it first (cargo build)")
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="hr-matrix-"))
    table = Table(tmp, random.Random(seed))
    failed = False
    try:
        await table.play()
    except Exception as error:  # noqa: BLE001 - every failure is reported the same way
        failed = True
        table.report_failure(error)
    finally:
        await table.close()
        if os.environ.get("HR_MATRIX_KEEP"):
            print(f"matrix: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"matrix: {table.passed} passed, {int(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
