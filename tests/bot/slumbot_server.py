"""A local Slumbot: the public API as its sample client documents it, written apart
from the client's translation code (its own reading of ``incr`` and its own betting
strings), dealing from our rules code with one of our strategies as the bot.

Edge cases it plays: either seat first to act (positions alternate by hand), hands
ended by the bot, all-ins before the river (the board is run out at the end and the
action string gets bare slashes), an illegal ``incr`` answered with ``error_msg``, a
new hand asked for in the middle of one (that hand is abandoned, not recorded), a
given number of failures (HTTP 503 or a dropped connection) before answering."""

from __future__ import annotations

import json
import random
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pokerbot.bot.strategies import make_strategy
from pokerbot.protocol.betting import CALL, FOLD, ActionType, BettingState, raise_to
from pokerbot.protocol.cards import card_to_str
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState

HUNL = bundled_game("holdem.nolimit.2p")


@dataclass
class Hand:
    number: int
    client_pos: int
    deck: list[int]
    state: BettingState
    text: str = ""
    street_base: int = 0  # each player's chips in when the street began (0 before the flop)


@dataclass
class Session:
    token: str
    hands: int = 0  # finished
    dealt: int = 0  # finished or abandoned
    hand: Hand | None = None
    total: float = 0.0


@dataclass
class SlumbotTestServer:
    strategy: str = "random"
    seed: int = 0
    users: dict = field(default_factory=lambda: {"alice": "secret"})
    sessions: dict = field(default_factory=dict)
    recorded: list = field(default_factory=list)  # (token, hand number, client_pos, action, winnings)
    failures: list = field(default_factory=list)  # "503" or "drop", consumed one per request
    requests: int = 0

    # ------------------------------------------------------------------ the game
    def _bot_seat(self, hand: Hand) -> int:
        return 1 - hand.client_pos

    def _encode(self, hand: Hand, action) -> str:
        s = hand.state
        if action.type is ActionType.RAISE:
            return f"b{action.size - hand.street_base}"
        if action.type is ActionType.FOLD:
            return "f"
        return "c" if s.max_spent > s.spent[s.current_player] else "k"

    def _apply(self, hand: Hand, action) -> None:
        s = hand.state
        hand.text += self._encode(hand, action)
        before = s.round
        s.apply(action)
        if s.finished:
            if not any(s.folded) and hand.number % 2 == 0:  # bare slashes after an all-in, or none
                hand.text += "/" * (HUNL.num_rounds - 1 - before)
            return
        if s.round != before:
            hand.text += "/"
            hand.street_base = s.max_spent
            need = HUNL.total_board_cards(s.round)
            s.deal_board_cards(hand.deck[4 + len(s.board_cards) : 4 + need])

    def _decode(self, hand: Hand, incr: str):
        s = hand.state
        owed = s.max_spent > s.spent[s.current_player]
        if incr == "k" and not owed:
            return CALL
        if incr == "c" and owed:
            return CALL
        if incr == "f" and owed:
            return FOLD
        if incr.startswith("b") and incr[1:].isdigit():
            action = raise_to(hand.street_base + int(incr[1:]))
            if s.can_apply(action):
                return action
            return None
        return None

    def _bot_moves(self, session: Session) -> None:
        hand = session.hand
        bot = self._bot
        while not hand.state.finished and hand.state.current_player == self._bot_seat(hand):
            action = bot.act(MatchState(self._bot_seat(hand), hand.state))
            if not hand.state.can_apply(action):
                action = CALL
            self._apply(hand, action)

    def _answer(self, session: Session, old: str) -> dict:
        hand = session.hand
        s = hand.state
        answer = {
            "old_action": old,
            "action": hand.text,
            "client_pos": hand.client_pos,
            "hole_cards": [card_to_str(c) for c in hand.deck[2 * hand.client_pos : 2 * hand.client_pos + 2]],
            "board": [card_to_str(c) for c in s.board_cards],
            "token": session.token,
        }
        if s.finished:
            last = HUNL.total_board_cards(HUNL.num_rounds - 1)
            if not any(s.folded) and len(s.board_cards) < last:
                s.deal_board_cards(hand.deck[4 + len(s.board_cards) : 4 + last])
                answer["board"] = [card_to_str(c) for c in s.board_cards]
            won = float(s.payoffs()[hand.client_pos])
            bot = self._bot_seat(hand)
            session.total += won
            session.hands += 1
            answer.update(
                winnings=won,
                won_pot=won * 2,
                bot_hole_cards=[card_to_str(c) for c in hand.deck[2 * bot : 2 * bot + 2]],
                baseline_winnings=self._baseline(hand),
                session_num_hands=session.hands,
                session_total=session.total,
            )
            self.recorded.append((session.token, hand.number, hand.client_pos, hand.text, won))
            session.hand = None
        return answer

    def _baseline(self, hand: Hand) -> float:
        """What a calling station would have won in the client's seat against the bot's
        play of these cards (a stand-in for Slumbot's own baseline)."""
        s = BettingState(HUNL, hand.number, [hand.deck[0:2], hand.deck[2:4]])
        bot = make_strategy(self.strategy, self.seed + 7 + hand.number)
        while not s.finished:
            need = HUNL.total_board_cards(s.round)
            if len(s.board_cards) < need:
                s.deal_board_cards(hand.deck[4 + len(s.board_cards) : 4 + need])
            seat = s.current_player
            a = CALL if seat == hand.client_pos else bot.act(MatchState(seat, s))
            s.apply(a if s.can_apply(a) else CALL)
        last = HUNL.total_board_cards(HUNL.num_rounds - 1)
        if not any(s.folded) and len(s.board_cards) < last:
            s.deal_board_cards(hand.deck[4 + len(s.board_cards) : 4 + last])
        return float(s.payoffs()[hand.client_pos])

    # ------------------------------------------------------------------ the API
    def login(self, body: dict) -> dict:
        if self.users.get(body.get("username")) != body.get("password"):
            return {"error_msg": "Invalid username or password"}
        token = str(uuid.uuid4())
        self.sessions[token] = Session(token)
        return {"token": token}

    def new_hand(self, body: dict) -> dict:
        token = body.get("token")
        if token is None or token not in self.sessions:
            token = str(uuid.uuid4())
            self.sessions[token] = Session(token)
        session = self.sessions[token]
        number = session.dealt  # a hand in progress is abandoned: never recorded
        session.dealt += 1
        deck = list(range(52))
        random.Random(f"{self.seed}:{number}").shuffle(deck)
        client_pos = number % 2
        session.hand = Hand(number, client_pos, deck, BettingState(HUNL, number, [deck[0:2], deck[2:4]]))
        self._bot = make_strategy(self.strategy, self.seed + number)
        self._bot_moves(session)
        return self._answer(session, "")

    def act(self, body: dict) -> dict:
        session = self.sessions.get(body.get("token"))
        if session is None:
            return {"error_msg": "Unknown token"}
        hand = session.hand
        if hand is None or hand.state.finished:
            return {"error_msg": "No hand in progress"}
        if hand.state.current_player != hand.client_pos:
            return {"error_msg": "Not your turn"}
        action = self._decode(hand, str(body.get("incr", "")))
        if action is None:
            return {"error_msg": f"Illegal action: {body.get('incr')!r}"}
        old = hand.text
        self._apply(hand, action)
        self._bot_moves(session)
        return self._answer(session, old)

    # ------------------------------------------------------------------ HTTP
    def start(self) -> str:
        server = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with lock:
                    server.requests += 1
                    failure = server.failures.pop(0) if server.failures else None
                    if failure == "drop":
                        self.close_connection = True
                        return
                    if failure == "503":
                        self.send_response(503)
                        self.end_headers()
                        return
                    try:
                        body = json.loads(raw or b"{}")
                    except ValueError:
                        body = None
                    route = {"/api/login": server.login, "/api/new_hand": server.new_hand, "/api/act": server.act}
                    if self.path not in route or not isinstance(body, dict):
                        self.send_response(404 if self.path not in route else 400)
                        self.end_headers()
                        return
                    answer = route[self.path](body)
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a client killed mid-request: the hand stays as the server left it

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
