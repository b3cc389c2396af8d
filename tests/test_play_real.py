"""simulacra play on the real small model, end to end through the local API: an interview,
the avatar saying a line and the resident answering under the grammar, the conversation
remembered, and all of it kept for the event log."""

from __future__ import annotations

import json

import pytest
from test_play import ISABELLA, WORLD, next_to, post

from simulacra.memory import Kind
from simulacra.settings import Settings
from simulacra.sim.live import LiveRun
from simulacra.sim.simulation import Simulation
from simulacra.viewer.server import ViewerServer

pytestmark = pytest.mark.real


def test_play_on_the_real_model(tmp_path, real_model, real_embedder):
    settings = Settings()
    sim = Simulation.create(
        WORLD,
        tmp_path / "run",
        hours=1,
        settings=settings,
        agents=[ISABELLA],
        model=real_model,
        embedder=real_embedder,
    )
    live = LiveRun(sim, speed=None, paused=True).start()
    try:
        with ViewerServer(sim.directory, live=live) as server:
            server.start()
            status, data = post(
                server, "talk", {"resident": ISABELLA, "question": "What do you do for work?"}
            )
            assert status == 200, data
            talk = json.loads(data)
            assert talk["answer"].strip() and talk["memories"]

            assert post(server, "enter", {"name": "Ana"})[0] == 200
            # Over to Isabella at once (walking there is the scripted tests' part).
            live.call(lambda me: me.sim.state.place("Ana", next_to(me.sim, ISABELLA)))
            status, data = post(server, "say", {"resident": ISABELLA, "text": "Hi! Who are you?"})
            assert status == 200, data
            assert json.loads(data)["reply"].strip()
            if sim.town.user.avatar.partner is not None:
                assert post(server, "leave", {})[0] == 200
            chats = [r for r in sim.resident(ISABELLA).agent.stream if r.kind is Kind.CHAT]
            assert any("Ana" in r.description for r in chats)

    finally:
        live.stop()
        sim.close()
    # Logged with the next step (the scripted tests run it); until then in the checkpoint.
    again = Simulation.open(tmp_path / "run", model=real_model, embedder=real_embedder)
    try:
        assert [a.kind for a in again.town.user.actions] == ["talk", "enter", "say", "leave"]
        assert again.town.user.avatar.name == "Ana"
    finally:
        again.close()
