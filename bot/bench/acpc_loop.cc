// The machine's floor for `pokerbot bench dealer`: the ACPC reference dealer's message
// pattern in C on the reference's own rules and network code (game.cc, rng.cc, net.cc,
// shipped in OpenSpiel's wheel), so that our Python dealer and players can be compared
// with compiled ones in the same run on the same machine.
//
//   acpc_loop dealer GAMEFILE HANDS SEED LOGFILE   prints the two ports, then hands/s
//   acpc_loop call HOST PORT                       a player that always calls (checks)
//
// The dealer does per action what the reference's gameLoop does with -q: one write of
// the state to every seat in seat order, a line from the seat to act read with the
// response timeout, the echoed state parsed and compared, the action read and
// validated, applied; per hand one flushed STATE line in the log and the final state
// to every seat. No .err traffic (-q), no transaction file.
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include "game.cc"
#include "rng.cc"
// net.cc is compiled as its own translation unit: its header breaks when included twice.

using namespace project_acpc_server;

static double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int send_state(const Game *game, MatchState *ms, int fd) {
  char line[MAX_LINE_LEN];
  int c = printMatchState(game, ms, MAX_LINE_LEN - 3, line);
  if (c < 0) return -1;
  line[c++] = '\r';
  line[c++] = '\n';
  return write(fd, line, c) == c ? 0 : -1;
}

static int dealer(const char *game_file, unsigned hands, unsigned seed, const char *log_file) {
  FILE *f = fopen(game_file, "r");
  if (!f) return 2;
  Game *game = readGame(f);
  fclose(f);
  if (!game || game->numPlayers != 2) return 2;
  uint16_t port[2] = {0, 0};
  int listen_fd[2], fd[2];
  ReadBuf *buf[2];
  for (int s = 0; s < 2; ++s) {
    listen_fd[s] = getListenSocket(&port[s]);
    if (listen_fd[s] < 0) return 1;
  }
  printf("%u %u\n", port[0], port[1]);
  fflush(stdout);
  char line[MAX_LINE_LEN];
  for (int s = 0; s < 2; ++s) {
    fd[s] = accept(listen_fd[s], NULL, NULL);
    if (fd[s] < 0) return 1;
    close(listen_fd[s]);
    int v = 1;
    setsockopt(fd[s], IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
    buf[s] = createReadBuf(fd[s]);
    if (getLine(buf[s], MAX_LINE_LEN, line, -1) <= 0) return 1;  // VERSION
  }
  FILE *log = fopen(log_file, "w");
  if (!log) return 1;
  rng_state_t rng;
  init_genrand(&rng, seed);
  MatchState ms, echoed;
  Action action;
  double start = now();
  for (unsigned h = 0; h < hands; ++h) {
    int player0_seat = h % 2;
    initState(game, h, &ms.state);
    dealCards(game, &rng, &ms.state);
    while (!stateFinished(&ms.state)) {
      int actor = currentPlayer(game, &ms.state);
      for (int s = 0; s < 2; ++s) {
        ms.viewingPlayer = (s + 2 - player0_seat) % 2;
        if (send_state(game, &ms, fd[s]) < 0) return 1;
      }
      ms.viewingPlayer = actor;
      int seat = (actor + player0_seat) % 2;
      for (;;) {
        if (getLine(buf[seat], MAX_LINE_LEN, line, 600000000) <= 0) return 1;
        if (line[0] == '#' || line[0] == ';') continue;
        int c = readMatchState(line, game, &echoed);
        if (c < 0 || !matchStatesEqual(game, &ms, &echoed)) continue;
        if (line[c++] != ':' || readAction(&line[c], game, &action) < 0 ||
            !isValidAction(game, &ms.state, 1, &action)) {
          action.type = a_call;
          action.size = 0;
        }
        break;
      }
      doAction(game, &action, &ms.state);
    }
    int n = printState(game, &ms.state, MAX_LINE_LEN, line);
    if (n < 0) return 1;
    fprintf(log, "%s:%g|%g\n", line, valueOfState(game, &ms.state, 0), valueOfState(game, &ms.state, 1));
    fflush(log);
    for (int s = 0; s < 2; ++s) {
      ms.viewingPlayer = (s + 2 - player0_seat) % 2;
      if (send_state(game, &ms, fd[s]) < 0) return 1;
    }
  }
  double seconds = now() - start;
  fclose(log);
  for (int s = 0; s < 2; ++s) close(fd[s]);
  printf("%u %.6f\n", hands, seconds);
  return 0;
}

static int call_player(char *host, uint16_t port, const char *game_file) {
  FILE *f = fopen(game_file, "r");
  if (!f) return 2;
  Game *game = readGame(f);
  fclose(f);
  if (!game) return 2;
  int fd = connectTo(host, port);
  if (fd < 0) return 1;
  int v = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
  const char version[] = "VERSION:2.0.0\r\n";
  if (write(fd, version, sizeof version - 1) != (ssize_t)(sizeof version - 1)) return 1;
  ReadBuf *buf = createReadBuf(fd);
  char line[MAX_LINE_LEN];
  MatchState ms;
  ssize_t n;
  while ((n = getLine(buf, MAX_LINE_LEN, line, -1)) > 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (readMatchState(line, game, &ms) < 0) return 1;
    if (stateFinished(&ms.state) || currentPlayer(game, &ms.state) != ms.viewingPlayer) continue;
    n += snprintf(&line[n], MAX_LINE_LEN - n, ":c\r\n");
    if (write(fd, line, n) != n) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && !strcmp(argv[1], "dealer"))
    return dealer(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10), argv[5]);
  if (argc == 5 && !strcmp(argv[1], "call"))
    return call_player(argv[2], (uint16_t)strtoul(argv[3], NULL, 10), argv[4]);
  fprintf(stderr, "usage: %s dealer GAMEFILE HANDS SEED LOGFILE | call HOST PORT GAMEFILE\n", argv[0]);
  return 2;
}
