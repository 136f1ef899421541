#!/usr/bin/env python3
"""The Matrix room's edges (#35.9), each an attack on the referee against a real Synapse: an
answer too big for one event, a request sent in a thread, an edited request, a request quoting
another message, curly quotes from a phone keyboard, `!hr` in a player's direct room, and a
homeserver that limits how fast the referee may post. No request may block the ones after it.

`tests/matrix/run.sh test_edges` runs it (the set-up of test_referee.py, then these steps). A
failed step is reported and the next one runs on a restarted referee; HR_MATRIX_ONLY=thread,edit
runs the set-up and the named steps only (each attack alone, to watch it fail).
"""

import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from test_referee import (  # noqa: E402
    HOUSERULE,
    REPLY_TIMEOUT,
    REPO,
    Request,
    Table,
    check,
    check_notice,
    origin_event,
)

# Two posts of 8000 characters that HTML escapes to about three times their size: `!hr log 2`
# shows both, which no single event can hold.
BIG = "<&> " * 2000
PART = "(part "


# The steps every run needs; HR_MATRIX_ONLY=step,step runs these and the steps it names.
SET_UP = ("start_homeserver", "setup_campaign", "link_and_invite", "start_referee")


def refused(reply):
    return (reply.content.get("houserule") or {}).get("refused")


def part_of(message):
    """(i, n) when the message is part i of n of one answer, else None."""
    marker = message.content.get("houserule") or {}
    if "part" in marker:
        return marker["part"], marker["parts"]
    return None


def without_label(body):
    """A part's text without its first line, "(part i of n)"."""
    first, _, rest = body.partition("\n")
    check(first.startswith(PART) and first.endswith(")"), f"a part does not start with its label: {first!r}")
    return rest


class Edges(Table):
    def steps(self):
        return [
            ("a Synapse homeserver starts; gm, ann, bo, eve and an admin register", self.start_homeserver),
            ("the GM sets up a Fumbles campaign from the CLI", self.setup_campaign),
            ("matrix link makes the room; matrix invite brings ann and bo in", self.link_and_invite),
            ("the referee starts and answers !hr help", self.start_referee),
            ("an answer too big for one event comes in parts; the next request is answered", self.oversized),
            ("a request sent in a thread is answered in that thread", self.thread),
            ("an edited request is answered: edits are not taken", self.edit),
            ("a request quoting another message is read", self.quoted),
            ("curly quotes from a phone keyboard parse", self.curly),
            ("!hr in a player's direct room says where to send it", self.direct_room),
            ("a rate-limited referee tells the room it is waiting, and answers all", self.rate_limited),
            ("a message refused for good gets a short error; the next is served", self.refused_for_good),
            ("one answer per request, one log event per act", self.once_each),
        ]

    async def start_homeserver(self):
        await super().start_homeserver()
        _, self.admin_token = await asyncio.to_thread(self.hs.register, "boss", "boss-password", True)

    async def send_content(self, name, content, logs=""):
        """Player `name` sends this m.room.message content to the shared room (remembered)."""
        event_id = await self.players[name].send_content(self.room, content)
        request = Request(name, event_id, content.get("body", ""), logs)
        self.requests.append(request)
        return request

    async def parts(self, request):
        """Every part of the referee's answer to `request`, in order (one when it fits)."""
        first = await self.answer(request)
        label = part_of(first)
        if label is None:
            return [first]
        n = label[1]
        player = self.players[request.player]
        await self.guarded(
            player.wait_until(
                lambda: len({part_of(m) for m in self.replies_seen(request)}) >= n,
                REPLY_TIMEOUT,
                f"all {n} parts of the answer to {request.text[:40]!r}",
            )
        )
        got = sorted({part_of(m): m for m in self.replies_seen(request)}.items())
        check([i for (i, _), _ in got] == list(range(1, n + 1)), f"parts {[k for k, _ in got]} of {n}")
        return [m for _, m in got]

    async def logged(self, request):
        """The log entry `request` wrote."""
        entries = [e for e in await self.cli.log(self.campaign) if origin_event(e) == request.event_id]
        check(len(entries) == 1, f"{request.text[:60]!r} wrote {len(entries)} log events")
        return entries[0]

    # -- steps -------------------------------------------------------------------------------

    async def oversized(self):
        for _ in range(2):
            await self.answer(await self.send("ann", f"!hr say {BIG}", logs="post"))
        shown = await self.parts(await self.send("bo", "!hr log 2"))
        check(len(shown) > 1, f"!hr log 2 of two long posts came whole: {len(shown[0].body)} characters")
        for i, part in enumerate(shown, 1):
            check_notice(part)
            label = f"(part {i} of {len(shown)})"
            check(part.body.startswith(label), f"part {i} is labelled {part.body[:30]!r}")
        text = "".join(without_label(p.body) for p in shown)
        check(text.count(BIG.strip()) == 2, "the parts of !hr log 2 do not hold both posts whole")
        # The queue moved on: a request after the big one is answered.
        helped = await self.answer(await self.send("bo", "!hr help"))
        check("!hr act" in helped.body, f"!hr help after the big answer: {helped.body[:80]!r}")

    async def thread(self):
        root = await self.players["ann"].send(self.room, "Goblins at the gate: a thread for this fight")

        def in_thread(body):
            return {
                "msgtype": "m.text",
                "body": body,
                "m.relates_to": {
                    "rel_type": "m.thread",
                    "event_id": root,
                    "is_falling_back": True,
                    "m.in_reply_to": {"event_id": root},
                },
            }

        def check_in_thread(reply, request):
            relates = reply.content.get("m.relates_to") or {}
            check(
                relates.get("rel_type") == "m.thread" and relates.get("event_id") == root,
                f"the answer to {request.text!r} is not in the thread: {relates}",
            )
            check(relates.get("is_falling_back") is False, f"a genuine reply in a thread: {relates}")

        asked = await self.send_content("ann", in_thread("!hr actions"))
        check_in_thread(await self.answer(asked), asked)
        acted = await self.send_content(
            "ann", in_thread("!hr act trait_check character=gandolf traits=Fireball"), logs="trait_check"
        )
        posted = await self.answer(acted)
        check_in_thread(posted, acted)
        check((posted.content.get("houserule") or {}).get("seq") == (await self.logged(acted))["seq"], "post")

    async def edit(self):
        before = await self.log_length()
        text = "!hr act trait_check character=gandolf traits=Levitate"
        original = await self.send("ann", text, logs="trait_check")
        await self.answer(original)
        changed = "!hr act trait_check character=gandolf traits=Barrier"
        edit = await self.send_content(
            "ann",
            {
                "msgtype": "m.text",
                "body": f"* {changed}",
                "m.new_content": {"msgtype": "m.text", "body": changed},
                "m.relates_to": {"rel_type": "m.replace", "event_id": original.event_id},
            },
        )
        reply = await self.answer(edit)
        check("edits are not taken" in reply.body.lower(), f"the answer to an edit: {reply.body!r}")
        check("send it again" in reply.body.lower(), f"the answer to an edit: {reply.body!r}")
        await asyncio.sleep(1.0)
        check(await self.log_length() == before + 1, "the edit was acted on")

    async def quoted(self):
        said = await self.players["ann"].send(self.room, "Frody, the pan!")
        command = "!hr act trait_check character=frody traits=agility"
        body = f"> <{self.users['ann']}> Frody, the pan!\n\n{command}"
        html = (
            f'<mx-reply><blockquote><a href="https://matrix.to/#/{self.room}/{said}">In reply to</a> '
            f"<a href=\"https://matrix.to/#/{self.users['ann']}\">{self.users['ann']}</a><br>Frody, the pan!"
            f"</blockquote></mx-reply>{command}"
        )
        request = await self.send_content(
            "bo",
            {
                "msgtype": "m.text",
                "body": body,
                "format": "org.matrix.custom.html",
                "formatted_body": html,
                "m.relates_to": {"m.in_reply_to": {"event_id": said}},
            },
            logs="trait_check",
        )
        reply = await self.answer(request)
        check(not refused(reply), f"quoted request refused: {reply.body!r}")
        entry = await self.logged(request)
        check(entry.get("action") == "trait_check", f"quoted request logged {entry}")

    async def curly(self):
        text = "!hr act trait_check character=gandolf traits=\u201cIQ of 180,Magic!\u201d"
        request = await self.send("ann", text, logs="trait_check")
        reply = await self.answer(request)
        check(not refused(reply), f"curly quotes refused: {reply.body!r}")
        entry = await self.logged(request)
        check("IQ of 180" in str(entry.get("params") or entry), f"the traits were not read: {entry}")

    async def direct_room(self):
        ann, direct = self.players["ann"], self.direct["ann"]
        event_id = await ann.send(direct, "!hr view")
        reply = await self.guarded(ann.wait_for_reply(self.gm, event_id, REPLY_TIMEOUT))
        check(reply.room_id == direct, f"the answer to !hr in the direct room came in {reply.room_id}")
        check(self.room in reply.body, f"the answer does not say which room to use: {reply.body!r}")
        check_notice(reply)

    async def rate_limited(self):
        path = f"/_synapse/admin/v1/users/{self.gm}/override_ratelimit"
        await asyncio.to_thread(self.admin, path, {"messages_per_second": 1, "burst_count": 1})
        ann = self.players["ann"]
        start = len(ann.seen)
        batch = [await self.send(name, "!hr help") for name in ("ann", "bo", "ann", "bo", "ann", "bo")]
        for request in batch:
            await self.answer(request)
        waiting = [
            m
            for m in ann.seen[start:]
            if m.room_id == self.room
            and m.sender == self.gm
            and "waiting" in m.body.lower()
            and not m.reply_to
        ]
        check(len(waiting) == 1, f"the room was told {len(waiting)} times that the referee waits")
        # The README's way to exempt the referee's account lifts the limit.
        await asyncio.to_thread(self.admin, path, {"messages_per_second": 0, "burst_count": 0})
        await self.answer(await self.send("bo", "!hr help"))

    async def refused_for_good(self):
        # The GM's account leaves ann's direct room: the homeserver refuses (403) every message
        # the referee sends there, for good.
        answer = await self.players["gm"].client.room_leave(self.direct["ann"])
        check(not type(answer).__name__.endswith("Error"), f"the GM could not leave: {answer}")
        viewed = await self.send("ann", "!hr view")
        reply = await self.answer(viewed)
        check((reply.content.get("houserule") or {}).get("refused"), f"not a refusal: {reply.body!r}")
        check("could not be sent" in reply.body, f"the refusal does not say what failed: {reply.body!r}")
        check(len(reply.body) < 600, f"the error is not short: {len(reply.body)} characters")
        await self.answer(await self.send("bo", "!hr help"))

    def admin(self, path, body):
        import json
        import urllib.request

        req = urllib.request.Request(
            self.hs.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.admin_token}"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    async def once_each(self):
        await asyncio.sleep(2.0)  # a duplicate answer would have arrived by now
        history = await self.players["ann"].history(self.room)
        replies = {}
        for m in history:
            if m.sender == self.gm and m.reply_to:
                replies.setdefault(m.reply_to, []).append(m)
        for r in self.requests:
            got = replies.get(r.event_id, [])
            labels = [part_of(m) for m in got]
            whole = len(got) == 1 and labels == [None]
            n = len(got)
            split = labels and None not in labels and sorted(labels) == [(i, n) for i in range(1, n + 1)]
            check(whole or split, f"{r.player}'s {r.text[:50]!r} has {len(got)} replies {labels}")
        for r in self.requests:
            if r.logs:
                await self.logged(r)
        await self.cli.run("verify", self.campaign)


async def main():
    seed = int(os.environ.get("HR_MATRIX_SEED") or random.randrange(1 << 30))
    binary = HOUSERULE.relative_to(REPO) if HOUSERULE.is_relative_to(REPO) else HOUSERULE
    print(f"matrix edges: Synapse + {binary}", flush=True)
    if not HOUSERULE.exists():
        print(f"matrix edges: {HOUSERULE} is missing: build it first (cargo build)")
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="hr-matrix-edges-"))
    table = Edges(tmp, random.Random(seed))
    only = set(filter(None, os.environ.get("HR_MATRIX_ONLY", "").split(",")))
    failed = 0
    try:
        for name, step in table.steps():
            started = time.monotonic()
            needed = step.__name__ in SET_UP
            if only and not needed and step.__name__ not in only:
                continue
            try:
                await step()
            except Exception as error:  # noqa: BLE001 - every failure is reported the same way
                failed += 1
                table.report_failure(error)
                if needed:
                    break
                # The next step starts from a referee that answers again.
                table.referee.kill9()
                table.referee.start()
                continue
            table.passed += 1
            print(f"  ok  {name} ({time.monotonic() - started:.1f} s)", flush=True)
    finally:
        await table.close()
        if os.environ.get("HR_MATRIX_KEEP"):
            print(f"matrix edges: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"matrix edges: {table.passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
