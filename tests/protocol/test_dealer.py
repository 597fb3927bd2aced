"""The dealer end to end over loopback, with scripted players."""

from __future__ import annotations

import asyncio
import io

import pytest

from pokerbot.protocol.dealer import Dealer, DealerConfig, ReferenceDeal
from pokerbot.protocol.dealer import main as dealer_main
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import parse_matchstate, parse_state_line
from pokerbot.protocol.replies import WARN_BAD_FORMAT, WARN_BAD_STATE, WARN_INVALID, WARN_UNREQUESTED

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = [pytest.mark.timeout(60)]


def config(tmp_path, hands=4, seed=1, **kw) -> DealerConfig:
    return DealerConfig(str(tmp_path / "m"), "holdem.nolimit.2p", hands, seed, ("alice", "bob"), **kw)


async def scripted_player(port: int, script=None, version: str = "VERSION:2.0.0\r\n", log: list | None = None):
    """Connects and plays. ``script(ms, text, n)`` returns the lines to send for our
    n-th decision (None: call), or "close" to hang up, or a float to sleep first."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(version.encode())
    n = 0
    try:
        while True:
            raw = await reader.readline()
            if not raw:
                return
            assert raw.endswith(b"\r\n")
            text = raw.decode().rstrip("\r\n")
            if log is not None:
                log.append(text)
            ms = parse_matchstate(text, HUNL)
            if ms.state.finished or not ms.is_our_turn:
                continue
            out = script(ms, text, n) if script else None
            n += 1
            if out == "close":
                writer.close()
                return
            if isinstance(out, float):
                await asyncio.sleep(out)
                out = None
            for line in out or [text + ":c"]:
                writer.write((line + "\r\n").encode())
    except (ConnectionError, OSError):
        return
    finally:
        writer.close()


async def run_match(tmp_path, scripts=(None, None), **kw):
    cfg = config(tmp_path, **kw)
    out = io.StringIO()
    dealer = Dealer(cfg, HUNL, stdout=out)
    ports = await dealer.listen()
    logs: list[list[str]] = [[], []]
    players = [asyncio.create_task(scripted_player(p, s, log=l)) for p, s, l in zip(ports, scripts, logs)]
    status = await dealer.run()
    await asyncio.gather(*players)
    files = {ext: (tmp_path / f"m.{ext}").read_text() for ext in ("log", "err") if (tmp_path / f"m.{ext}").exists()}
    return status, dealer, out.getvalue(), files, logs


def log_hands(text: str):
    return [parse_state_line(l, HUNL) for l in text.splitlines() if l.startswith("STATE:")]


@pytest.mark.asyncio
async def test_match_plays_and_scores(tmp_path):
    status, dealer, out, files, logs = await run_match(tmp_path, hands=6)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == " ".join(str(p) for p in dealer.ports)  # the ports line comes first
    assert lines[-1].startswith("SCORE:") and lines[-1].endswith(":alice|bob")
    hands = log_hands(files["log"])
    assert [h.state.hand_id for h in hands] == list(range(6))
    assert files["log"].startswith("# name/game/hands/seed ")
    assert files["log"].rstrip().endswith(lines[-1])
    assert "WARNING" not in files["err"] and "TO 1 at " in files["err"] and "FROM 2 at " in files["err"]
    # every state went to both players, the final one included
    assert sum(1 for t in logs[0] if parse_matchstate(t, HUNL).state.finished) == 6
    assert sum(1 for t in logs[1] if parse_matchstate(t, HUNL).state.finished) == 6


@pytest.mark.asyncio
async def test_polling_for_replies_changes_nothing_but_timing(tmp_path):
    # spin_us polls the sockets before sleeping; with the players in this event loop
    # they can only answer once it gives up, so every reply waits the window: still
    # the same match, byte for byte.
    def raiser(ms, text, n):
        bounds = ms.state.raise_bounds()
        return [f"{text}:r{bounds[0]}"] if bounds and n % 2 == 0 else None

    runs = []
    for spin_us in (0, 300):
        d = tmp_path / str(spin_us)
        d.mkdir()
        status, _, out, files, logs = await run_match(d, hands=10, seed=5, scripts=(raiser, None), spin_us=spin_us)
        assert status == 0
        runs.append((out.splitlines()[-1], files["log"].splitlines()[1:], logs))
    assert runs[0] == runs[1]


@pytest.mark.asyncio
async def test_seats_swap_every_hand_unless_fixed(tmp_path):
    status, _, _, files, logs = await run_match(tmp_path, hands=4)
    assert [h.names for h in log_hands(files["log"])] == [["alice", "bob"], ["bob", "alice"]] * 2
    positions = sorted({(parse_matchstate(t, HUNL).hand_id, parse_matchstate(t, HUNL).viewer) for t in logs[0]})
    assert positions == [(0, 0), (1, 1), (2, 0), (3, 1)]
    status, _, _, files, _ = await run_match(tmp_path, hands=4, fixed_seats=True)
    assert [h.names for h in log_hands(files["log"])] == [["alice", "bob"]] * 4


@pytest.mark.asyncio
async def test_an_untimed_seat_may_take_its_time_while_the_other_keeps_every_limit(tmp_path):
    def slow(ms, text, n):
        return 0.2

    # the same slow player as seat 1, untimed: the match finishes; as seat 2, limited: not
    for untimed, finished in (((0,), True), ((1,), False)):
        d = tmp_path / str(untimed[0])
        d.mkdir()
        status, dealer, _, files, _ = await run_match(
            d, hands=3, t_response_ms=100, t_hand_ms=150, t_per_hand_ms=50, scripts=(slow, None), untimed_seats=untimed
        )
        assert (status == 0) is finished
        if finished:
            assert dealer.result.completed_hands == 3 and "WARNING" not in files["err"]
        else:
            assert "seat 1" in files["err"] and dealer.result.completed_hands == 0
    # seat 2 keeps its limits while seat 1 is untimed
    (tmp_path / "both").mkdir()
    status, _, _, files, _ = await run_match(
        tmp_path / "both", hands=3, t_response_ms=100, scripts=(None, slow), untimed_seats=(0,)
    )
    assert status == 1 and "ERROR: could not get action from seat 2" in files["err"]


@pytest.mark.asyncio
async def test_deals_depend_on_the_seed_only(tmp_path):
    def raiser(ms, text, n):
        bounds = ms.state.raise_bounds()
        return [f"{text}:r{bounds[0]}"] if bounds and n % 3 == 0 else None

    _, _, _, a, _ = await run_match(tmp_path / "a" if (tmp_path / "a").mkdir() or True else None, hands=8, seed=77)
    _, _, _, b, _ = await run_match(
        tmp_path / "b" if (tmp_path / "b").mkdir() or True else None, hands=8, seed=77, scripts=(raiser, None)
    )
    for ha, hb in zip(log_hands(a["log"]), log_hands(b["log"])):
        assert ha.state.hole_cards == hb.state.hole_cards
        n = min(len(ha.state.board_cards), len(hb.state.board_cards))
        assert ha.state.board_cards[:n] == hb.state.board_cards[:n]
    _, _, _, c, _ = await run_match(tmp_path / "c" if (tmp_path / "c").mkdir() or True else None, hands=8, seed=78)
    assert [h.state.hole_cards for h in log_hands(c["log"])] != [h.state.hole_cards for h in log_hands(a["log"])]


def test_deal_matches_the_reference_dealer():
    """A real dealer line (docs/protocol.md), hand 1: MATCHSTATE:1:1:...:9h6s|3d3h/5s3s8h/9d/5c.
    Our generator deals exactly these cards for hand 1 with seed 42."""
    from pokerbot.protocol.cards import cards_to_str

    deal = ReferenceDeal(HUNL, 42)
    deal.next_hand()
    holes, board = deal.next_hand()
    assert cards_to_str(holes[0]) + "|" + cards_to_str(holes[1]) == "9h6s|3d3h"
    assert cards_to_str(board) == "5s3s8h9d5c"


@pytest.mark.asyncio
async def test_bad_replies_are_warned_in_the_reference_words_and_play_goes_on(tmp_path):
    def script(ms, text, n):
        return {
            0: [
                "# a comment",
                "nonsense",
                text.replace(f"E:{ms.viewer}:{ms.hand_id}:", f"E:{ms.viewer}:{ms.hand_id + 7}:") + ":c",
                text + ":r150",
            ],
            1: [text + ":x"],
            2: [text + ":r"],
            3: [text],
            4: [text + ":f"] if not ms.state.can_fold() else [text + ":c"],
        }.get(n)

    status, dealer, _, files, _ = await run_match(tmp_path, hands=3, scripts=(script, None))
    err = files["err"]
    assert status == 0
    for w in (
        WARN_BAD_STATE,
        WARN_UNREQUESTED,
        "WARNING: raise of 150 increased to 200",
        WARN_INVALID,
        WARN_BAD_FORMAT,
    ):
        assert w in err
    assert len(log_hands(files["log"])) == 3


@pytest.mark.asyncio
async def test_response_timeout_ends_the_match_keeping_completed_hands(tmp_path):
    def stall(ms, text, n):
        return 1.0 if ms.hand_id == 2 else None

    status, dealer, out, files, _ = await run_match(tmp_path, hands=5, t_response_ms=300, scripts=(stall, stall))
    assert status == 1 and "SCORE" not in out
    assert "ERROR: could not get action from seat" in files["err"]
    assert [h.state.hand_id for h in log_hands(files["log"])] == [0, 1]


@pytest.mark.asyncio
async def test_hand_time_limit(tmp_path):
    def slow(ms, text, n):
        return 0.12

    status, dealer, _, files, _ = await run_match(tmp_path, hands=3, t_hand_ms=300, scripts=(slow, slow))
    assert status == 1
    assert "ERROR: seat 1 ran out of time" in files["err"] or "ERROR: seat 2 ran out of time" in files["err"]
    assert dealer.result.completed_hands == 0


@pytest.mark.asyncio
async def test_match_average_time_limit(tmp_path):
    def slow(ms, text, n):
        return 0.1

    # 4 hands x 150 ms of budget for a player who needs 100 ms per decision
    status, dealer, _, files, _ = await run_match(tmp_path, hands=4, t_per_hand_ms=150, scripts=(slow, None))
    assert status == 1 and dealer.result.completed_hands < 4
    assert "ERROR: seat 1 ran out of time" in files["err"]
    assert len(log_hands(files["log"])) == dealer.result.completed_hands


@pytest.mark.asyncio
async def test_disconnect_mid_hand(tmp_path):
    def hang_up(ms, text, n):
        return "close" if ms.hand_id == 1 else None

    status, dealer, out, files, _ = await run_match(tmp_path, hands=4, scripts=(hang_up, None))
    assert status == 1 and "SCORE" not in out
    assert "ERROR:" in files["err"]
    assert [h.state.hand_id for h in log_hands(files["log"])] == [0]


@pytest.mark.asyncio
async def test_bad_version_string(tmp_path):
    cfg = config(tmp_path, hands=1)
    dealer = Dealer(cfg, HUNL, stdout=io.StringIO())
    ports = await dealer.listen()
    players = [
        asyncio.create_task(scripted_player(ports[0], version="HELLO\r\n")),
        asyncio.create_task(scripted_player(ports[1])),
    ]
    assert await dealer.run() == 1
    await asyncio.gather(*players)
    assert "ERROR: invalid version string HELLO" in (tmp_path / "m.err").read_text()


@pytest.mark.asyncio
async def test_start_timeout(tmp_path):
    dealer = Dealer(config(tmp_path, hands=1, start_timeout_ms=200), HUNL, stdout=io.StringIO())
    await dealer.listen()
    assert await dealer.run() == 1
    assert "did not connect" in dealer.result.error


def test_command_line_errors(capsys, tmp_path):
    assert dealer_main([str(tmp_path / "x"), "no-such.game", "10", "1", "a", "b"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert dealer_main([str(tmp_path / "x"), "holdem.nolimit.2p", "10", "1", "a|b", "c"]) == 2
    assert dealer_main([str(tmp_path / "x"), "holdem.nolimit.2p", "10", "1", "a", "b", "-p", "1,2,3"]) == 2
    assert dealer_main([str(tmp_path / "x"), "holdem.nolimit.2p", "10", "1", "a", "b", "--spin-us", "-1"]) == 2
    assert "--spin-us" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        dealer_main(["only-a-name"])


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

REPLY_JUNK = st.one_of(
    st.text(alphabet="MATCHSTE:0123456789rcfbkRCFBK/|AKQJT98765432shdcx- #;", max_size=40),
    st.text(max_size=20),
    st.sampled_from([":c", ":f", ":r", ":r1", ":r99999", ":b300", ":k", "", ":x", "::", ":c:c"]),
)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.booleans(), REPLY_JUNK), min_size=1, max_size=6))
def test_dealer_survives_any_replies(tmp_path_factory, junk):
    """Players sending arbitrary lines (alone, or glued to the right state): the
    dealer warns and goes on, or the match fails cleanly; it never crashes, and the
    completed hands are in the log."""
    tmp = tmp_path_factory.mktemp("fuzz")

    def script(ms, text, n):
        if n < len(junk):
            glued, j = junk[n]
            return [text + j if glued else j, text + ":c"]
        return None

    async def go():
        return await run_match(tmp, hands=3, t_response_ms=1500, scripts=(script, script))

    status, dealer, out, files, _ = asyncio.run(go())
    assert status in (0, 1)
    hands = log_hands(files["log"])
    assert len(hands) == dealer.result.completed_hands
    if status == 0:
        assert len(hands) == 3 and "SCORE:" in out
    for line in files["err"].splitlines():
        if "WARNING" in line:
            assert line.startswith("WARNING: ")
