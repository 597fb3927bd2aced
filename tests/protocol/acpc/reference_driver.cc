// Test driver around the ACPC reference rules code that OpenSpiel ships
// (project_acpc_server/game.cc, rng.cc): deals, hand ranks and MATCHSTATE parsing,
// so that our Python code can be compared with the real thing. Built by the tests.
#include <cstdio>
#include <cstring>
#include "game.cc"
#include "rng.cc"

using namespace project_acpc_server;

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s GAMEFILE\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) return 2;
  Game *game = readGame(f);
  if (!game) return 2;
  char cmd[32];
  char line[4096];
  while (scanf("%31s", cmd) == 1) {
    if (!strcmp(cmd, "deal")) {  // deal SEED HANDS: each hand's cards, hole cards by position then board
      unsigned seed, hands;
      if (scanf("%u %u", &seed, &hands) != 2) return 3;
      rng_state_t rng;
      init_genrand(&rng, seed);
      State st;
      for (unsigned h = 0; h < hands; ++h) {
        initState(game, h, &st);
        dealCards(game, &rng, &st);
        for (int p = 0; p < game->numPlayers; ++p)
          for (int i = 0; i < game->numHoleCards; ++i) printf("%d ", st.holeCards[p][i]);
        for (int i = 0; i < sumBoardCards(game, game->numRounds - 1); ++i) printf("%d ", st.boardCards[i]);
        printf("\n");
      }
    } else if (!strcmp(cmd, "rank")) {  // rank N c1 .. cN: rankCardset of the set
      int n, c;
      if (scanf("%d", &n) != 1) return 3;
      Cardset cs = emptyCardset();
      for (int i = 0; i < n; ++i) {
        if (scanf("%d", &c) != 1) return 3;
        addCardToCardset(&cs, suitOfCard(c), rankOfCard(c));
      }
      printf("%d\n", rankCardset(cs));
    } else if (!strcmp(cmd, "ms")) {  // ms LINE: readMatchState, then printMatchState
      if (scanf(" %4095[^\n]", line) != 1) return 3;
      MatchState ms;
      // readMatchState leaves cards it does not read untouched: start from a clean
      // state so nothing of an earlier line shows through.
      memset(&ms, 0, sizeof(ms));
      int r = readMatchState(line, game, &ms);
      if (r < 0 || line[r] != 0) {
        printf("ERR\n");
      } else {
        char out[4096];
        printMatchState(game, &ms, sizeof(out), out);
        printf("%s\n", out);
      }
    }
    fflush(stdout);
  }
  return 0;
}
