/* SQLite's own CPU for one stored input as the store writes it (BEGIN IMMEDIATE, a clock
   catch-up row, the input's row, COMMIT with synchronous=FULL in WAL), statements prepared
   once, built -O2 like a release build; against a 4 KB pwrite + fsync. */
#include "sqlite_nio_sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/resource.h>
static double cpu(void) { struct rusage u; getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  sqlite3 *db; unlink("f.sqlite"); unlink("f.sqlite-wal");
  sqlite_nio_sqlite3_open_v2("f.sqlite", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, 0);
  sqlite_nio_sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
    "CREATE TABLE inputs (room TEXT NOT NULL, n INTEGER NOT NULL, input TEXT NOT NULL, t INTEGER NOT NULL, events TEXT NOT NULL, seat INTEGER, seq INTEGER, kind TEXT NOT NULL DEFAULT 'line', PRIMARY KEY (room, n))", 0, 0, 0);
  sqlite3_stmt *b, *c, *ins;
  sqlite_nio_sqlite3_prepare_v3(db, "BEGIN IMMEDIATE", -1, SQLITE_PREPARE_PERSISTENT, &b, 0);
  sqlite_nio_sqlite3_prepare_v3(db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &c, 0);
  sqlite_nio_sqlite3_prepare_v3(db, "INSERT INTO inputs (room, n, input, t, events, seat, seq, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, SQLITE_PREPARE_PERSISTENT, &ins, 0);
  const char *ev = "[{\"type\":\"card\",\"seat\":1,\"card\":\"7 of hearts\",\"pile\":11,\"led\":[1,0,1,0,1,0]},{\"type\":\"card\",\"seat\":2,\"card\":\"7 of hearts\",\"pile\":12,\"led\":[1,0,1,0,1,0]},{\"type\":\"card\",\"seat\":3,\"card\":\"7 of hearts\",\"pile\":13,\"led\":[1,0,1,0,1,0]},{\"type\":\"card\",\"seat\":4,\"card\":\"7 of hearts\",\"pile\":14,\"led\":[1,0,1,0,1,0]}]";
  char room[16];
  double t0 = cpu();
  for (int i = 0; i < n; i++) {
    snprintf(room, sizeof room, "bench%d", i % 50);
    sqlite_nio_sqlite3_step(b); sqlite_nio_sqlite3_reset(b);
    for (int k = 0; k < 2; k++) {
      sqlite_nio_sqlite3_bind_text(ins, 1, room, -1, SQLITE_TRANSIENT);
      sqlite_nio_sqlite3_bind_int64(ins, 2, 2 * i + k);
      sqlite_nio_sqlite3_bind_text(ins, 3, k ? "as Ann roll" : "tick 250ms", -1, SQLITE_TRANSIENT);
      sqlite_nio_sqlite3_bind_int64(ins, 4, 250 * i);
      sqlite_nio_sqlite3_bind_text(ins, 5, k ? ev : "[]", -1, SQLITE_TRANSIENT);
      if (k) { sqlite_nio_sqlite3_bind_int64(ins, 6, 1); sqlite_nio_sqlite3_bind_int64(ins, 7, i); } else { sqlite_nio_sqlite3_bind_null(ins, 6); sqlite_nio_sqlite3_bind_null(ins, 7); }
      sqlite_nio_sqlite3_bind_text(ins, 8, "line", -1, SQLITE_STATIC);
      if (sqlite_nio_sqlite3_step(ins) != SQLITE_DONE) { fprintf(stderr, "%s\n", sqlite_nio_sqlite3_errmsg(db)); return 1; }
      sqlite_nio_sqlite3_reset(ins);
    }
    sqlite_nio_sqlite3_step(c); sqlite_nio_sqlite3_reset(c);
  }
  double sql = (cpu() - t0) / n * 1e6;
  int fd = open("f.raw", O_WRONLY | O_CREAT | O_TRUNC, 0600); char page[4096]; memset(page, 7, sizeof page);
  t0 = cpu();
  for (int i = 0; i < n; i++) { pwrite(fd, page, 4096, (off_t)i * 4096); fsync(fd); }
  double raw = (cpu() - t0) / n * 1e6;
  printf("one input a transaction (2 rows, synchronous=FULL): SQLite %.0f us CPU; a 4 KB pwrite + fsync %.0f us CPU\n", sql, raw);
  return 0;
}
