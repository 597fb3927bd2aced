"""The strategy query API: every hand's action probabilities, agreeing with what the
strategy plays, and questions that leave the real hand as it was."""

import random

import numpy as np
import pytest
from conftest import shuffled_deck

from pokerbot.blueprint_store.real_play import concrete_action
from pokerbot.blueprint_store.store import RANGE_THRESHOLD
from pokerbot.bot.evaluation.lbr import stand_in_for
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.strategy_query import HANDS, QueryError, live_hands, query
from pokerbot.bot.strategies import make_strategy
from pokerbot.protocol.betting import CALL, FOLD, ActionType, BettingState, apply_betting, raise_to
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(300)


def spot(betting: str, board: list[int] | None = None) -> BettingState:
    s = apply_betting(BettingState(HUNL, 0, [[0, 1], [2, 3]]), betting)
    if board:
        s.deal_board_cards(board[: HUNL.total_board_cards(s.round)])
    return s


def test_hands_are_the_canonical_pairs():
    assert HANDS.shape == (1326, 2) and len({tuple(h) for h in HANDS.tolist()}) == 1326
    assert live_hands([0, 1]).sum() == 1326 - 101  # pairs holding card 0 or 1: 51 + 51 - 1


@pytest.mark.parametrize("name", ["call", "fold", "allin", "raise-pot"])
def test_a_bot_that_ignores_its_cards_answers_what_it_plays_for_every_live_hand(name):
    bot = make_strategy(name, 1)
    board = [10, 20, 30, 40]
    for betting in ("", "c", "r300", "r300c/", "r300c/r600", "r300c/cc/"):
        s = spot(betting, board)
        answer = query(bot, s, s.current_player)
        played = bot.act(MatchState(s.current_player, s))
        assert answer.actions == (played,)
        live = live_hands(s.board_cards)
        assert np.all(answer.probabilities[live, 0] == 1.0) and np.all(answer.probabilities[~live] == 0.0)
        assert np.array_equal(answer.probability_of(played), answer.probabilities[:, 0])


def test_the_fold_bot_checks_when_it_may_and_folds_to_any_bet():
    bot = make_strategy("fold", 1)
    for betting, expected in (("r300c/", CALL), ("r300c/r600", FOLD), ("", FOLD)):
        s = spot(betting)  # a free check on the flop; a bet; the small blind facing the big blind
        assert query(bot, s, s.current_player).actions == (expected,)


def test_the_random_bot_spreads_its_raise_over_the_legal_range():
    bot = make_strategy("random", 1)
    s = spot("r300")
    lo, hi = s.raise_bounds()
    answer = query(bot, s, s.current_player)
    assert answer.raise_range == (lo, hi)
    row = dict(zip(answer.actions, answer.probabilities[0]))
    assert row[FOLD] == pytest.approx(0.06) and row[CALL] == pytest.approx(0.47)
    inside = answer.probability_of(raise_to(lo + 7))
    assert inside[0] == pytest.approx(0.47 / (hi - lo + 1))
    assert not answer.probability_of(raise_to(hi + 1)).any()
    free = query(bot, spot("r300c/"), 0)  # the big blind first on the flop: checking is free, no fold
    assert FOLD not in free.actions and free.probabilities[0].sum() == pytest.approx(1.0)


def test_questions_the_api_refuses():
    s = spot("r300")
    with pytest.raises(QueryError, match="turn"):
        query(make_strategy("call", 1), s, 1 - s.current_player)
    with pytest.raises(QueryError, match="over"):
        query(make_strategy("call", 1), spot("f"), 0)

    class Opaque:
        name = "opaque"

    with pytest.raises(QueryError, match="opaque"):
        query(Opaque(), s, s.current_player)


def test_the_blueprint_answers_its_store_s_strategy_for_every_hand(small_blueprint):
    # played as the store's lookups threshold (whatever the player's default), the answers are the lookups'
    player = BlueprintStrategy(seed=3, blueprint=small_blueprint, purified_rounds=(), range_threshold=RANGE_THRESHOLD)
    board = [5, 18, 31, 44, 51]
    for betting in ("", "r300", "c", "r300c/", "cc/", "r300c/cc/"):
        s = spot(betting, board)
        seat = s.current_player
        answer = query(player, s, seat)
        live = live_hands(s.board_cards)
        assert np.allclose(answer.probabilities[live].sum(axis=1), 1.0)
        assert not answer.probabilities[~live].any()
        # an independent path: the store's own lookup for a few hands, mapped to real actions
        for h in np.flatnonzero(live)[::97]:
            abstract, p = player.bp.strategy_for(s, HANDS[h].tolist())
            node = player.bp.node_of(s)
            expected = {}
            for a, q in zip(abstract, p):
                real = concrete_action(player.bp, s, seat, node, a)
                expected[real] = expected.get(real, 0.0) + q
            got = {a: answer.probabilities[h, i] for i, a in enumerate(answer.actions)}
            assert got == pytest.approx(expected)


def test_the_blueprint_plays_what_it_answers(small_blueprint):
    """Over many keyed draws, the actions a hand plays follow its answered row."""
    player = BlueprintStrategy(seed=11, blueprint=small_blueprint)
    s = spot("")
    answer = query(player, s, 1)
    h = int(np.argmax(answer.probabilities.max(axis=1) < 0.9))  # a hand that mixes
    assert answer.probabilities[h].max() < 0.9
    other = [c for c in range(52) if c not in HANDS[h]][:2]
    counts = dict.fromkeys(answer.actions, 0)
    for hand_id in range(400):
        st = BettingState(HUNL, hand_id, [other, HANDS[h].tolist()])  # position 1 acts first
        counts[player.act(MatchState(st.current_player, st))] += 1
    for i, a in enumerate(answer.actions):
        assert counts[a] / 400 == pytest.approx(answer.probabilities[h, i], abs=0.08)


@pytest.fixture(scope="module")
def mixed_blueprint(tmp_path_factory):
    """A blueprint with two first-raise sizes in every round: a raise between them is
    translated at random (pseudo-harmonic), so a query that drew from the translation
    generator, or forgot the hand's translations, would change later play."""
    from conftest import build_small_blueprint

    from pokerbot.blueprint_store.actions import ActionAbstraction
    from pokerbot.solver.tree import BetSizes

    actions = ActionAbstraction(tuple(BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2) for _ in range(4)))
    return build_small_blueprint(str(tmp_path_factory.mktemp("mixed") / "mixed.bp"), 10_000, actions=actions)


def deal_and_play(hand_id, deck, seat, ours, theirs):
    """One hand dealt from ``deck`` (both players' hole cards, then the board as the
    rounds need it): at ``seat``'s decisions ``ours(s)`` says what to play, at the
    other's ``theirs(s)``."""
    s = BettingState(HUNL, hand_id, [deck[0:2], deck[2:4]])
    while not s.finished:
        need = HUNL.total_board_cards(s.round)
        if len(s.board_cards) < need:
            s.deal_board_cards(deck[4 + len(s.board_cards) : 4 + need])
        s.apply(ours(s) if s.current_player == seat else theirs(s))


def clamped_raise(s, to):
    """A raise to ``to`` chips, kept within the legal raise range at ``s``."""
    lo, hi = s.raise_bounds()
    return raise_to(min(max(to, lo), hi))


def opens(s):
    """No raise yet in this round, and a raise is possible."""
    return not any(b.type is ActionType.RAISE for b in s.actions[s.round]) and s.raise_bounds() is not None


def play_hand(player, deck, seat, questions):
    """The player's actions in one hand against an opponent who opens every round with
    0.7 pot (between the abstraction's 0.5 and 1, translated at random) and otherwise
    calls; ``questions`` asks about hypothetical raises before each of its decisions."""
    taken = []

    def ours(s):
        for size in questions:
            other = s.copy()
            if other.raise_bounds() is not None:
                other.apply(clamped_raise(other, size))
                if not other.finished and other.current_player is not None:
                    query(player, other, other.current_player)
        a = player.act(MatchState(seat, s))
        taken.append(str(a))
        return a

    def theirs(s):
        to_call = s.max_spent - s.spent[s.current_player]
        return clamped_raise(s, s.max_spent + int(0.7 * (s.pot + to_call))) if opens(s) else CALL

    deal_and_play(7, deck, seat, ours, theirs)
    return taken


def test_a_question_about_another_line_does_not_change_the_real_hand(mixed_blueprint):
    rng = random.Random(4)
    hands = []
    for trial in range(16):
        deck = list(range(52))
        rng.shuffle(deck)
        seat = trial % 2
        plain = play_hand(BlueprintStrategy(seed=trial, blueprint=mixed_blueprint), deck, seat, [])
        asked = play_hand(BlueprintStrategy(seed=trial, blueprint=mixed_blueprint), deck, seat, [333, 777, 1999])
        assert asked == plain
        hands.append(plain)
    assert sum(len(h) for h in hands) >= 30  # the hands went on past the translated raises


def test_the_same_seed_gives_the_same_answer_off_the_tree(small_blueprint):
    s = spot("r437")  # a raise the abstraction lacks: translated, at random
    answers = [query(BlueprintStrategy(seed=9, blueprint=small_blueprint), s, 0) for _ in range(2)]
    assert answers[0].actions == answers[1].actions
    assert np.array_equal(answers[0].probabilities, answers[1].probabilities)


def test_the_prober_moves_the_first_raise_to_its_size(small_blueprint):
    prober = make_strategy("prober", 2, blueprint=small_blueprint)
    s = spot("")
    answer = query(prober, s, s.current_player)
    inner = query(prober.inner, s, s.current_player)
    raises = [a for a in answer.actions if a.type is ActionType.RAISE and a.size < HUNL.stack[0]]
    assert len(raises) == 1  # every sized first raise becomes the probe
    played = {prober.act(MatchState(s.current_player, s)) for _ in range(1)}
    assert played <= set(answer.actions)
    assert np.allclose(answer.probabilities.sum(axis=1), inner.probabilities.sum(axis=1))


def river_agent(blueprint, seed=4):
    from pokerbot.bot.agent.libratus import LibratusAgent
    from pokerbot.bot.agent.time_budget import TimeBudget

    # limits far from binding: every solve runs its full iteration count, so solves
    # are the same bit for bit whenever they run
    return LibratusAgent(
        seed, blueprint, solve_seconds=60.0, budget=TimeBudget(600.0, 600.0, 600.0), solve_round="river"
    )


def agent_hand(agent, deck, seat, questions):
    """The agent's actions in one hand against an opponent who bets 0.7 pot at its
    first chance on the turn and river and calls otherwise (forcing safe re-solves);
    before each of the agent's river decisions, ``questions`` asks what it would do
    after other bets of its opponent (nested re-solves)."""
    taken = []

    def ours(s):
        if s.round == 3:
            for frac in questions:
                other = s.copy()
                if other.can_apply(CALL):
                    other.apply(CALL)
                if not other.finished and other.raise_bounds() is not None:
                    other.apply(clamped_raise(other, other.max_spent + int(frac * other.pot)))
                    answer = query(agent, other, seat)
                    assert np.allclose(answer.probabilities[live_hands(other.board_cards)].sum(axis=1), 1.0)
        a = agent.act(MatchState(seat, s))
        taken.append((s.round, str(a)))
        return a

    def theirs(s):
        return clamped_raise(s, s.max_spent + int(0.7 * s.pot)) if s.round >= 2 and opens(s) else CALL

    deal_and_play(3, deck, seat, ours, theirs)
    return taken


def test_the_agent_answers_from_its_solves_and_a_question_leaves_its_hand_as_it_was(small_blueprint):
    river_decisions = 0
    for trial in range(20):
        deck = shuffled_deck(trial)
        plain = agent_hand(river_agent(small_blueprint), deck, trial % 2, [])
        asked = agent_hand(river_agent(small_blueprint), deck, trial % 2, [0.33, 1.3])
        assert asked == plain
        river_decisions += sum(r == 3 for r, _ in plain)
    assert river_decisions >= 5  # questions were asked between solves and re-solves


def test_the_agent_s_river_answer_is_the_distribution_it_plays(small_blueprint):
    agent = river_agent(small_blueprint)
    deck = shuffled_deck(3)
    s = apply_betting(BettingState(HUNL, 5, [deck[0:2], deck[2:4]]), "r300c/cc/cc/")
    s.deal_board_cards(deck[4:9])
    seat = s.current_player
    answer = query(agent, s, seat)
    live = live_hands(s.board_cards)
    assert np.allclose(answer.probabilities[live].sum(axis=1), 1.0) and not answer.probabilities[~live].any()
    blueprint = query(stand_in_for(agent), s, seat)
    assert answer.actions != blueprint.actions  # a river subgame's sizes, not the blueprint's
    assert len([a for a in answer.actions if a.type is ActionType.RAISE]) > 2
    # what it plays with its real hand has that hand's probability in the answer
    h = [tuple(x) for x in HANDS.tolist()].index(tuple(sorted(deck[2 * seat : 2 * seat + 2])))
    a = agent.act(MatchState(seat, s))
    assert answer.probability_of(a)[h] > 0
    # the same seed and state: the same answer, solved again from scratch
    again = query(river_agent(small_blueprint), s, seat)
    assert again.actions == answer.actions and np.array_equal(again.probabilities, answer.probabilities)
    # asked after it played here: the solution it played from (no solve), the same answer
    after = query(agent, s, seat)
    assert after.actions == answer.actions and np.array_equal(after.probabilities, answer.probabilities)


def hand_asking_first(agent, deck, seat, ask):
    """The agent's actions in one hand against an opponent who bets 0.7 pot at its
    first chance on the river and calls otherwise; with ``ask``, before that bet the
    agent is asked about the state after it, as LBR asks. Each action comes with
    whether the agent faced that river bet."""
    taken = []

    def ours(s):
        a = agent.act(MatchState(seat, s))
        faced = s.round == 3 and any(b.type is ActionType.RAISE for b in s.actions[3])
        taken.append((s.round, str(a), faced))
        return a

    def theirs(s):
        if not (s.round == 3 and opens(s)):
            return CALL
        bet = clamped_raise(s, s.max_spent + int(0.7 * s.pot))
        if ask:
            after = s.copy()
            after.apply(bet)
            query(agent, after, seat)
        return bet

    deal_and_play(3, deck, seat, ours, theirs)
    return taken


def test_a_decision_at_a_state_asked_about_plays_from_the_solve_made_for_the_question(small_blueprint):
    from conftest import capture_agent_logs

    checked = 0
    for trial in range(40):
        deck = shuffled_deck(100 + trial)
        with capture_agent_logs() as plain_logs:
            plain = hand_asking_first(river_agent(small_blueprint), deck, trial % 2, ask=False)
        if not any(faced for _, _, faced in plain):
            continue  # a deal where the agent does not decide on the river after the bet
        checked += 1
        if checked > 6:
            break
        with capture_agent_logs() as asked_logs:
            asked = hand_asking_first(river_agent(small_blueprint), deck, trial % 2, ask=True)
        assert asked == plain  # the same play
        solves = [sum(e["event"] == "solve" for e in logs) for logs in (plain_logs, asked_logs)]
        reused = [e for e in asked_logs if e["event"] == "decision" and e.get("solved_for_question")]
        assert not any(e.get("solved_for_question") for e in plain_logs)
        # the decision after the bet played from the question's solve: no solve twice
        assert len(reused) == 1 and reused[0]["round"] == 3 and solves[1] == solves[0], trial
    assert checked >= 4
