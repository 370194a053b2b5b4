/* The floor under a store that syncs each acknowledged input at a person's pace: what one
   sync to disk costs the process in CPU when it comes after a pause, as a store's thread
   that waited for work meets it. Four loops of N rounds, each round a 10 ms sleep then:
     sleep       nothing (the wake-up alone)
     write       a 4 KB pwrite into a file's first 64 pages
     fdatasync   the write, then fdatasync
     fsync       the write, then fsync
     wake        nothing but waking another thread
   CPU is getrusage's user + system for the whole loop over N. The sync's own CPU is
   "fsync" less "write". Run in the folder the store lives in (its file system):
     gcc -O2 -pthread bench/store-cost/sync-floor.c -o /tmp/sync-floor && (cd "$(mktemp -d)" && /tmp/sync-floor 300)
   bench/README.md, "Served input, 2026-12-02: the floors added up", has the figures. */
#include <fcntl.h>
#include <pthread.h>
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t signal_ = PTHREAD_COND_INITIALIZER;
static int work = 0, done = 0;

static void *waiter(void *unused) {
    (void)unused;
    pthread_mutex_lock(&lock);
    while (!done) {
        while (!work && !done) pthread_cond_wait(&signal_, &lock);
        work = 0;
    }
    pthread_mutex_unlock(&lock);
    return NULL;
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
    pthread_t thread;
    if (pthread_create(&thread, NULL, waiter, NULL) != 0) { fprintf(stderr, "sync-floor: no thread\n"); return 1; }
    const char *names[] = {"sleep", "write", "fdatasync", "fsync", "wake"};
    double used[5];
    for (int mode = 0; mode < 5; mode++) {
        double start = cpu();
        for (int i = 0; i < rounds; i++) {
            usleep(10000);
            if (mode >= 1 && mode <= 3 && pwrite(fd, page, sizeof page, (off_t)(i % 64) * 4096) != (ssize_t)sizeof page) { perror("pwrite"); return 1; }
            if (mode == 2) fdatasync(fd);
            if (mode == 3) fsync(fd);
            if (mode == 4) {
                pthread_mutex_lock(&lock);
                work = 1;
                pthread_cond_signal(&signal_);
                pthread_mutex_unlock(&lock);
            }
        }
        used[mode] = (cpu() - start) / rounds * 1e6;
        printf("%-10s %7.1f us of CPU a round\n", names[mode], used[mode]);
    }
    printf("the sync's own CPU: fsync %.1f us, fdatasync %.1f us (less the write's round)\n", used[3] - used[1], used[2] - used[1]);
    printf("waking a sleeping thread: %.1f us (less the sleep's round)\n", used[4] - used[0]);
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_signal(&signal_);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    close(fd);
    unlink("sync-floor.bin");
    return 0;
}
