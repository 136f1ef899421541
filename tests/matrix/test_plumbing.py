#!/usr/bin/env python3
"""Checks the harness of test_referee.py without the referee: the throwaway Synapse, shared-secret
registration, nio players (invites, replies, paging through history), and the Fumbles campaign,
post line, share and verify it relies on. `tests/matrix/run.sh test_plumbing` runs it.
"""

import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from homeserver import Homeserver  # noqa: E402
from players import Player  # noqa: E402
from test_referee import HOUSERULE, VERIFY_LINE, Cli, check, setup_fumbles  # noqa: E402


async def players_talk(hs):
    """ann opens a room and invites bo, who joins by himself; a reply finds its request; the
    whole history comes back in order across several pages."""
    ids = {name: hs.register(name, f"{name}-pw")[0] for name in ("ann", "bo")}
    ann = await Player(hs.url, ids["ann"], "ann-pw").start()
    bo = await Player(hs.url, ids["bo"], "bo-pw").start()
    try:
        created = await ann.client.room_create(name="plumbing", invite=[ids["bo"]])
        room = created.room_id
        await bo.wait_joined(room)
        request = await ann.send(room, "!hr actions")
        content = {
            "msgtype": "m.notice",
            "body": "pong",
            "format": "org.matrix.custom.html",
            "formatted_body": "<b>pong</b>",
            "m.relates_to": {"m.in_reply_to": {"event_id": request}},
            "houserule": {"seq": 7},
        }
        await bo.client.room_send(room, "m.room.message", content)
        reply = await ann.wait_for_reply(ids["bo"], request, timeout=10)
        check(reply.body == "pong" and reply.formatted_body == "<b>pong</b>", f"reply {reply}")
        check(reply.content["houserule"] == {"seq": 7}, f"custom field lost: {reply.content}")
        sent = [await ann.send(room, f"message {i}") for i in range(45)]
        history = [m.event_id for m in await bo.history(room, page=20)]
        check(history[-45:] == sent and history[-46] == reply.event_id, "history out of order")
    finally:
        await ann.close()
        await bo.close()


async def campaign_verifies(tmp):
    """The Fumbles set-up of test_referee.py plays; a post's verify line checks a player's copy."""
    cli = Cli(tmp / "config")
    campaign = tmp / "plumbing.houserule"
    await setup_fumbles(cli, campaign)
    roll = await cli.json(
        "act",
        campaign,
        "challenge_roll",
        "--as",
        "player:ann",
        "-p",
        "character=gandolf",
        "-p",
        "attack=Scorching Hellfire,Fireball",
        "-p",
        "defense=Barrier,Levitate",
    )
    post = (await cli.run("post", campaign, roll["event"]["seq"])).stdout
    found = VERIFY_LINE.search(post)
    check(found and int(found[1]) == roll["event"]["seq"] and found[2] == roll["event"]["hash"], post)
    copy = tmp / "ann.houserule"
    await cli.run("share", campaign, copy, "--for", "player:ann")
    await cli.run("verify", copy, "--event", found[1], "--hash", found[2])
    wrong = await cli.run("verify", copy, "--event", found[1], "--hash", "0" * 64, ok=False)
    check(wrong.returncode != 0, "verify accepted a wrong hash")


async def main():
    tmp = Path(tempfile.mkdtemp(prefix="hr-plumbing-"))
    hs = Homeserver(tmp / "synapse")
    passed = 0
    try:
        started = time.monotonic()
        await asyncio.to_thread(hs.start)
        print(f"  ok  Synapse starts ({time.monotonic() - started:.1f} s)", flush=True)
        passed += 1
        for name, step in [
            ("players invite, join, reply and page through history", lambda: players_talk(hs)),
            ("a Fumbles campaign, its post line, share and verify", lambda: campaign_verifies(tmp)),
        ]:
            started = time.monotonic()
            await step()
            passed += 1
            print(f"  ok  {name} ({time.monotonic() - started:.1f} s)", flush=True)
    except Exception as error:  # noqa: BLE001
        print(f"  FAILED: {error!r}\n----- homeserver log -----\n{hs.log_tail()}")
        print(f"plumbing: {passed} passed, 1 failed")
        return 1
    finally:
        hs.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"plumbing: {passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    if not HOUSERULE.exists():
        sys.exit(f"plumbing: {HOUSERULE} is missing: build it first")
    sys.exit(asyncio.run(main()))
