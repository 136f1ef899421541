"""Players at a Matrix table, driven with matrix-nio.

A Player logs in with a password, joins every room it is invited to (the table's room and the
direct room the referee opens), keeps every room event its sync delivers, sends text messages,
and waits for the referee's answers: replies point at a request through
content["m.relates_to"]["m.in_reply_to"]["event_id"].
"""

import asyncio
import time
from dataclasses import dataclass

from nio import AsyncClient, JoinError, MessageDirection, RoomMessagesError, SyncResponse
from nio.events import Event
from nio.events.misc import BadEvent, UnknownBadEvent

POLL = 0.05
# Long enough that a burst of answers (a referee catching up after a restart) is not cut short.
SYNC_FILTER = {"room": {"timeline": {"limit": 200}}}


@dataclass
class Message:
    """A room message as a player saw it."""

    room_id: str
    event_id: str
    sender: str
    content: dict

    @property
    def body(self):
        return self.content.get("body", "")

    @property
    def formatted_body(self):
        return self.content.get("formatted_body")

    @property
    def reply_to(self):
        return in_reply_to(self.content)


def in_reply_to(content):
    """The event id a message replies to, or None."""
    relates = content.get("m.relates_to") or {}
    return (relates.get("m.in_reply_to") or {}).get("event_id")


def as_message(room_id, source):
    return Message(room_id, source["event_id"], source["sender"], source.get("content") or {})


class Player:
    """One Matrix account, syncing in the background while the test runs."""

    def __init__(self, homeserver_url, user_id, password):
        self.user_id = user_id
        self.password = password
        self.client = AsyncClient(homeserver_url, user_id)
        self.seen = []  # every m.room.message from sync, in arrival order
        self.invited = set()
        self._sync_task = None

    async def start(self):
        """Log in, do a first sync and keep syncing (joining rooms on invite) in the background."""
        answer = await self.client.login(self.password, device_name="houserule-test")
        if not getattr(answer, "access_token", None):
            raise RuntimeError(f"{self.user_id} could not log in: {answer}")
        self.client.add_event_callback(self._on_event, (Event, BadEvent, UnknownBadEvent))
        self.client.add_response_callback(self._on_sync, SyncResponse)
        await self.client.sync(timeout=0, full_state=True, sync_filter=SYNC_FILTER)
        self._sync_task = asyncio.create_task(self.client.sync_forever(timeout=1000, sync_filter=SYNC_FILTER))
        return self

    async def close(self):
        if self._sync_task:
            self._sync_task.cancel()
            await asyncio.gather(self._sync_task, return_exceptions=True)
        await self.client.close()

    async def _on_event(self, room, event):
        if event.source.get("type") == "m.room.message":
            self.seen.append(as_message(room.room_id, event.source))

    async def _on_sync(self, response):
        for room_id in response.rooms.invite:
            if room_id not in self.invited:
                self.invited.add(room_id)
                answer = await self.client.join(room_id)
                if isinstance(answer, JoinError):
                    self.invited.discard(room_id)  # try again on the next sync

    # -- rooms -------------------------------------------------------------------------------

    async def wait_joined(self, room_id, timeout=20):
        """Wait until this player is in room_id (after accepting its invite)."""
        await self.wait_until(lambda: room_id in self.client.rooms, timeout, f"joined {room_id}")

    async def send(self, room_id, body):
        """Send a plain text message; returns its event id."""
        return await self.send_content(room_id, {"msgtype": "m.text", "body": body})

    async def send_content(self, room_id, content):
        """Send an m.room.message with this content (a thread reply, an edit …); returns its id."""
        answer = await self.client.room_send(room_id, "m.room.message", content)
        if not getattr(answer, "event_id", None):
            raise RuntimeError(f"{self.user_id} could not send to {room_id}: {answer}")
        return answer.event_id

    async def invite(self, room_id, user_id):
        answer = await self.client.room_invite(room_id, user_id)
        if type(answer).__name__.endswith("Error"):
            raise RuntimeError(f"{self.user_id} could not invite {user_id}: {answer}")

    # -- waiting -----------------------------------------------------------------------------

    async def wait_until(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.user_id}: no {what} within {timeout:.0f} s")
            await asyncio.sleep(POLL)

    async def wait_for(self, match, timeout=20, what="matching message", since=0):
        """The first message seen (from index `since` of self.seen on, so far or later) for
        which match(message) is true."""

        def first():
            return next((m for m in self.seen[since:] if match(m)), None)

        return await self.wait_until(first, timeout, what)

    async def wait_for_reply(self, sender, event_id, timeout=20):
        """The first message from sender that replies to event_id (any room)."""
        return await self.wait_for(
            lambda m: m.sender == sender and m.reply_to == event_id,
            timeout,
            f"reply from {sender} to {event_id}",
        )

    # -- history -----------------------------------------------------------------------------

    async def history(self, room_id, page=100):
        """Every m.room.message of room_id, oldest first, read with /messages paging."""
        events, token = [], None
        while True:
            answer = await self.client.room_messages(
                room_id, start=token, direction=MessageDirection.back, limit=page
            )
            if isinstance(answer, RoomMessagesError):
                raise RuntimeError(f"{self.user_id} could not read {room_id}: {answer}")
            events.extend(e.source for e in answer.chunk)
            if not answer.chunk or not answer.end or answer.end == token:
                break
            token = answer.end
        events.reverse()
        return [as_message(room_id, e) for e in events if e.get("type") == "m.room.message"]
