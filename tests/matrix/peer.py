#!/usr/bin/env python3
"""A throwaway Synapse with players on it, driven from another program (the desktop Online test).

    target/matrix-venv/bin/python tests/matrix/peer.py DIR gm ann bo

Starts a homeserver in DIR, registers each named account with a random password, logs in a
matrix-nio client for each name but the first (the first, the GM, is for the app to log in
with), and prints one JSON line: {"url", "server_name", "users": {name: {"id", "password"}}}.
Then it answers one JSON request per line on stdin with one JSON line on stdout, until stdin
closes (then it stops the homeserver):

    {"op": "send", "as": "ann", "room": ROOM, "text": "!hr help"}       -> {"event_id"}
    {"op": "reply", "as": "ann", "to": EVENT_ID, "from": GM_ID, "timeout": 30}
                                                                          -> {"message"} or {"timeout": true}
    {"op": "seq", "as": "ann", "room": ROOM, "from": GM_ID, "seq": 7, "timeout": 30}
                                                                          -> {"message"} (the post of event 7)
    {"op": "joined", "as": "ann", "room": ROOM, "timeout": 30}          -> {"rooms": [...]}

A message is {"room_id", "event_id", "sender", "body", "content", "reply_to"}. A failed request
answers {"error": "..."}.
"""

import asyncio
import json
import secrets
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from homeserver import Homeserver  # noqa: E402
from players import Player  # noqa: E402


def shown(m):
    return {
        "room_id": m.room_id,
        "event_id": m.event_id,
        "sender": m.sender,
        "body": m.body,
        "content": m.content,
        "reply_to": m.reply_to,
    }


async def answer(players, request):
    player = players[request["as"]]
    op = request["op"]
    timeout = float(request.get("timeout", 30))
    if op == "send":
        return {"event_id": await player.send(request["room"], request["text"])}
    if op == "reply":
        try:
            m = await player.wait_for_reply(request["from"], request["to"], timeout)
        except TimeoutError:
            return {"timeout": True}
        return {"message": shown(m)}
    if op == "seq":
        room, sender, seq = request["room"], request["from"], request["seq"]
        m = await player.wait_for(
            lambda m: m.room_id == room
            and m.sender == sender
            and (m.content.get("houserule") or {}).get("seq") == seq,
            timeout,
            f"the post of event {seq}",
        )
        return {"message": shown(m)}
    if op == "joined":
        await player.wait_joined(request["room"], timeout)
        return {"rooms": sorted(player.client.rooms)}
    return {"error": f"no op {op!r}"}


async def main(directory, names):
    hs = Homeserver(Path(directory))
    players = {}
    try:
        await asyncio.to_thread(hs.start)
        users = {}
        for name in names:
            password = f"{name}-{secrets.token_hex(8)}"
            user_id, _ = await asyncio.to_thread(hs.register, name, password)
            users[name] = {"id": user_id, "password": password}
        for name in names[1:]:
            players[name] = await Player(hs.url, users[name]["id"], users[name]["password"]).start()
        print(json.dumps({"url": hs.url, "server_name": hs.server_name, "users": users}), flush=True)
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            try:
                reply = await answer(players, json.loads(line))
            except Exception as error:  # noqa: BLE001 - every failure goes back as an answer
                reply = {"error": f"{type(error).__name__}: {error}"}
            print(json.dumps(reply), flush=True)
    finally:
        await asyncio.gather(*(p.close() for p in players.values()), return_exceptions=True)
        hs.stop()


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: peer.py DIR GM [PLAYER...]")
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
