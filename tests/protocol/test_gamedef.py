import pytest

from pokerbot.protocol.gamedef import (
    DEFAULT_GAME,
    UNLIMITED_STACK,
    BettingType,
    GameDefError,
    bundled_game,
    bundled_game_names,
    format_gamedef,
    load_gamedef,
    parse_gamedef,
)

HUNL_TEXT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""


def test_hunl_text_from_acpc_md_parses():
    g = parse_gamedef(HUNL_TEXT)
    assert g.betting is BettingType.NOLIMIT
    assert g.stack == (20000, 20000)
    assert g.blind == (100, 50)
    assert g.first_player == (1, 0, 0, 0)
    assert g.num_board_cards == (0, 3, 1, 1)
    assert g.max_raises == (255,) * 4
    assert g.big_blind == 100
    assert bundled_game(DEFAULT_GAME) == g


def test_keys_are_case_insensitive_and_comments_ignored():
    text = (
        "# a comment\ngamedef\nNOLIMIT\nNUMPLAYERS 2  # inline comment\nnumrounds=1\n"
        "Stack = 500 500\nBLIND = 10 5\nfirstplayer = 2\nnumSUITS = 4\nnumranks = 13\n"
        "numholecards = 2\nNumBoardCards = 0\n\n   \nend gamedef\n"
    )
    g = parse_gamedef(text)
    assert g.num_rounds == 1 and g.stack == (500, 500) and g.first_player == (1,)


@pytest.mark.parametrize("name", bundled_game_names())
def test_bundled_games_round_trip_through_text(name):
    g = bundled_game(name)
    assert parse_gamedef(format_gamedef(g)) == g


def test_bundled_games_present():
    assert {
        "holdem.nolimit.2p",
        "holdem.limit.2p",
        "kuhn.limit.2p",
        "leduc.limit.2p",
        "leduc.nolimit.2p",
        "flop.nolimit.2p",
    } <= set(bundled_game_names())


def test_format_matches_reference_layout():
    assert format_gamedef(bundled_game("holdem.nolimit.2p")) == HUNL_TEXT


def test_limit_without_stack_is_unlimited_and_omitted_when_written():
    g = bundled_game("leduc.limit.2p")
    assert g.stack == (UNLIMITED_STACK, UNLIMITED_STACK)
    assert "stack" not in format_gamedef(g)


def test_deck_uses_top_ranks_and_suits_like_the_reference_dealer():
    from pokerbot.protocol.cards import cards_to_str

    assert cards_to_str(bundled_game("leduc.limit.2p").deck()) == "QhKhAhQsKsAs"
    assert len(bundled_game("holdem.nolimit.2p").deck()) == 52


def test_load_by_path_and_by_bundled_name(tmp_path):
    p = tmp_path / "g.game"
    p.write_text(HUNL_TEXT)
    assert load_gamedef(p) == bundled_game("holdem.nolimit.2p")
    assert load_gamedef("leduc.limit.2p") == bundled_game("leduc.limit.2p")
    with pytest.raises(GameDefError, match="cannot read"):
        load_gamedef(tmp_path / "missing.game")


def _replace(line_start: str, new: str) -> str:
    lines = HUNL_TEXT.splitlines()
    out = [new if l.startswith(line_start) else l for l in lines]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    "text,line,message",
    [
        (_replace("numRounds", "numRounds = 5"), 4, "numRounds must be 1..4"),
        (_replace("numPlayers", "numPlayers = 1"), 3, "numPlayers must be 2..10"),
        (_replace("stack", "stack = 20000"), 5, "needs 2 values"),
        (_replace("blind", "blind = 100 50 25"), 6, "needs 2 values"),
        (_replace("blind", "blind = 30000 50"), 6, "greater than the stack"),
        (_replace("firstPlayer", "firstPlayer = 3 1 1 1"), 7, "invalid first player 3 on round 1"),
        (_replace("numSuits", "numSuits = 5"), 8, "numSuits must be 1..4"),
        (_replace("numRanks", "numRanks = 14"), 9, "numRanks must be 1..13"),
        (_replace("numHoleCards", "numHoleCards = 0"), 10, "numHoleCards must be 1..3"),
        (_replace("numBoardCards", "numBoardCards = 0 3 1"), 11, "needs 4 values"),
        (_replace("numRanks", "numRanks = 2"), None, "too many hole and board cards"),
        (_replace("stack", "stack = 20000 2O000"), 5, "'2O000' is not an integer"),
        (_replace("stack", "stak = 20000 20000"), 5, "unknown key 'stak'"),
        (_replace("nolimit", "nolimit 3"), 2, "takes no value"),
        (_replace("numSuits", "numSuits ="), 8, "has no value"),
        (HUNL_TEXT.replace("END GAMEDEF\n", ""), None, "missing 'END GAMEDEF'"),
        (HUNL_TEXT.replace("GAMEDEF\nnolimit", "nolimit"), 1, "expected 'GAMEDEF'"),
        (HUNL_TEXT + "numPlayers = 2\n", 13, "text after 'END GAMEDEF'"),
        (_replace("numSuits", "numPlayers = 2"), 8, "given twice (first on line 3)"),
        (HUNL_TEXT.replace("nolimit\n", "limit\n"), None, "missing 'raiseSize'"),
        (HUNL_TEXT.replace("numHoleCards = 2\n", ""), None, "missing 'numHoleCards'"),
    ],
)
def test_bad_files_name_the_line_and_problem(text, line, message):
    with pytest.raises(GameDefError) as err:
        parse_gamedef(text, source="bad.game")
    assert message in str(err.value)
    assert err.value.line == line
    assert str(err.value).startswith("bad.game:" + (f"{line}:" if line else ""))
