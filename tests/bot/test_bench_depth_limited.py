"""``pokerbot bench depth-limited``: what it measures and prints (not how fast: the
figures are for the docs, from the command)."""

from pokerbot.bot.bench.depth_limited import bench_depth_limited, print_depth_limited_report
from pokerbot.bot.cli import main


def test_the_bench_times_the_agent_s_flop_and_turn_subgames(small_blueprint, tmp_path, capsys):
    r = bench_depth_limited(small_blueprint, repeats=1)
    for name, deals in (("flop", 49 * 2), ("turn", 48)):  # a runout sample; every river card
        x = r[name]
        assert x["deals"] == deals and x["leaves"] > 1 and x["continuation_nodes"] > x["leaves"]
        assert x["ms_per_iteration_1_thread"] > 0 and x["setup_ms_first"] > 0 and x["setup_ms_again"] > 0
        assert x["ms_per_iteration_2_threads"] is None or x["ms_per_iteration_2_threads"] > 0
    print_depth_limited_report(r)
    out = capsys.readouterr().out
    assert "flop (QsJh2h, r300c/)" in out and "turn (QsJh2h5c, r300c/cc/)" in out and "ms per iteration" in out
    assert main(["bench", "depth-limited", "--blueprint", str(tmp_path / "none.bp")]) == 2
    assert "no blueprint at" in capsys.readouterr().err
