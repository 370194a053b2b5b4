/* The floor under a store that syncs each acknowledged input at a person's pace: what one
   sync to disk costs the process in CPU when it comes after a pause, as a store's thread
   that waited for work meets it. Four loops of N rounds, each round a 10 ms sleep then:
     sleep       nothing (the wake-up alone)
     write       a 4 KB pwrite into a file's first 64 pages
     fdatasync   the write, then fdatasync
     fsync       the write, then fsync
   CPU is getrusage's user + system for the whole loop over N. The sync's own CPU is
   "fsync" less "write". Run in the folder the store lives in (its file system):
     gcc -O2 bench/store-cost/sync-floor.c -o /tmp/sync-floor && (cd "$(mktemp -d)" && /tmp/sync-floor 300)
   bench/README.md, "The room store's CPU per input and restarts", has the figures. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    if (rounds < 1 || rounds > 1000000) { fprintf(stderr, "sync-floor: rounds must be 1 to 1000000\n"); return 2; }
    int fd = open("sync-floor.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror("sync-floor: sync-floor.bin"); return 1; }
    char page[4096];
    memset(page, 'x', sizeof page);
    for (int i = 0; i < 64; i++) if (pwrite(fd, page, sizeof page, (off_t)i * 4096) != (ssize_t)sizeof page) { perror("pwrite"); return 1; }
    fsync(fd);
    const char *names[] = {"sleep", "write", "fdatasync", "fsync"};
    double used[4];
    for (int mode = 0; mode < 4; mode++) {
        double start = cpu();
        for (int i = 0; i < rounds; i++) {
            usleep(10000);
            if (mode >= 1 && pwrite(fd, page, sizeof page, (off_t)(i % 64) * 4096) != (ssize_t)sizeof page) { perror("pwrite"); return 1; }
            if (mode == 2) fdatasync(fd);
            if (mode == 3) fsync(fd);
        }
        used[mode] = (cpu() - start) / rounds * 1e6;
        printf("%-10s %7.1f us of CPU a round\n", names[mode], used[mode]);
    }
    printf("the sync's own CPU: fsync %.1f us, fdatasync %.1f us (less the write's round)\n", used[3] - used[1], used[2] - used[1]);
    close(fd);
    unlink("sync-floor.bin");
    return 0;
}
